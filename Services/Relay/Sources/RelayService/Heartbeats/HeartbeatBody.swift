/// The body of `POST /v1/outposts/{outpost_id}/heartbeat` (PROTOCOL.md §14): exactly two counts.
struct HeartbeatBody: Decodable, Sendable {
    /// Mailboxes the outpost watches.
    var mailboxes: Int
    /// Mailboxes failing to connect or log in.
    var failing: Int

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Refuses members other than `mailboxes` and `failing` (a heartbeat carries counts, never names).
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if let extra = c.allKeys.first(where: { $0.stringValue != "mailboxes" && $0.stringValue != "failing" }) {
            throw DecodingError.dataCorruptedError(forKey: extra, in: c, debugDescription: "unknown member \(extra.stringValue)")
        }
        mailboxes = try c.decode(Int.self, forKey: Key(stringValue: "mailboxes"))
        failing = try c.decode(Int.self, forKey: Key(stringValue: "failing"))
    }
}
