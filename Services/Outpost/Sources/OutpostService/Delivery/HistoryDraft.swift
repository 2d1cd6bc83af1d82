/// A history entry about to be recorded.
struct HistoryDraft: Sendable {
    var eventID: String
    var mailbox: String
    var folder: String
    var sender: String
    var subjectSummary: String
}
