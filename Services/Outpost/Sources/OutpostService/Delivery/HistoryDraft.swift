/// A history entry about to be recorded.
struct HistoryDraft: Sendable {
    var eventID: String
    var mailbox: String
    var folder: String
    var sender: String
    var subjectSummary: String
    /// When the mail server received it (INTERNALDATE, else the Date header), Unix seconds; nil when unknown.
    var mailReceivedAt: Int64? = nil
}
