/// Accounts could not answer (unreachable, 5xx, or an answer the relay cannot read).
///
/// Callers answer 503 with `Retry-After` (intake) or retry later (delivery).
struct AccountsError: Error, Sendable, CustomStringConvertible {
    var message: String
    var description: String { "accounts: \(message)" }
}
