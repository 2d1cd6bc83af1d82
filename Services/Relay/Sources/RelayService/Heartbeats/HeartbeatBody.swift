/// The body of `POST /v1/outposts/{outpost_id}/heartbeat` (PROTOCOL.md §14).
struct HeartbeatBody: Decodable, Sendable {
    /// Mailboxes the outpost watches.
    var mailboxes: Int
    /// Mailboxes failing to connect or log in.
    var failing: Int

    enum CodingKeys: String, CodingKey {
        case mailboxes, failing
    }
}
