/// A permission an outpost grants a device (PROTOCOL.md §10). Each is granted
/// and revoked on its own; push pairing alone grants no body access.
public enum ManagementScope: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Configure the outpost.
    case manage
    /// Read message bodies.
    case content
    /// Receive native push notifications.
    case push

    public static func < (a: ManagementScope, b: ManagementScope) -> Bool { a.rawValue < b.rawValue }

    /// Parses a comma list: non-empty, known scopes, no repeats.
    static func parseList(_ s: String) throws(ProtocolError) -> [ManagementScope] {
        var out: [ManagementScope] = []
        for item in s.split(separator: ",", omittingEmptySubsequences: false) {
            guard let scope = ManagementScope(rawValue: String(item)) else { throw .malformed("unknown scope \(item)") }
            guard !out.contains(scope) else { throw .malformed("scope \(item) is repeated") }
            out.append(scope)
        }
        guard !out.isEmpty else { throw .malformed("scope list is empty") }
        return out
    }

    /// Scopes sorted in byte order and joined with `,`, as signed in §10.
    static func signedList(_ scopes: [ManagementScope]) -> String {
        scopes.map(\.rawValue).sorted().joined(separator: ",")
    }
}
