/// One notification in the administrator history, with how each device fared.
public struct HistoryEntry: Sendable, Hashable {
    public var id: Int64
    public var mailbox: String
    public var folder: String
    public var sender: String
    public var subjectSummary: String
    public var createdAt: Int64
    /// Device id and delivery status (`pending`, `queued`, `sent`, `failed`, `expired`).
    public var devices: [(deviceID: String, status: String, detail: String?)]

    public static func == (a: HistoryEntry, b: HistoryEntry) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
