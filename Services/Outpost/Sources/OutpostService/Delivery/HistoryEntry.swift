/// One notification in the administrator history, with how each device fared.
public struct HistoryEntry: Sendable, Hashable {
    public var id: Int64
    public var mailbox: String
    public var folder: String
    public var sender: String
    public var subjectSummary: String
    /// When the outpost noticed the mail (and stored the entry).
    public var createdAt: Int64
    /// When the mail server received it (INTERNALDATE, else the Date header); nil when unknown or recorded before receipts.
    public var mailReceivedAt: Int64? = nil
    /// Each device's delivery and its times.
    public var devices: [HistoryDelivery]

    public static func == (a: HistoryEntry, b: HistoryEntry) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
