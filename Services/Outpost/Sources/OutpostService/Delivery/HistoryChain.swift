/// The chain of one delivery as `history` prints it: mail received → noticed → relay accepted → APNs sent → displayed.
public enum HistoryChain {
    /// One line, each hop as the seconds since the one before (`?` where a time is not known yet).
    public static func describe(_ entry: HistoryEntry, _ delivery: HistoryDelivery, time: (Int64) -> String) -> String {
        var parts: [String] = []
        if let received = entry.mailReceivedAt {
            parts.append("mail received \(time(received))")
            parts.append("noticed \(delta(entry.createdAt, since: received))")
        } else {
            parts.append("mail received (not recorded)")
            parts.append("noticed \(time(entry.createdAt))")
        }
        var last: Int64? = entry.createdAt
        for (label, at) in [("relay accepted", delivery.acceptedAt), ("APNs sent", delivery.sentAt), ("displayed", delivery.displayedAt)] {
            guard let at else {
                parts.append("\(label) ?")
                last = nil
                continue
            }
            parts.append("\(label) \(last.map { delta(at, since: $0) } ?? time(at))")
            last = at
        }
        return parts.joined(separator: " → ")
    }

    /// `+N s` (never negative: the relay's clock may run a little behind the outpost's).
    static func delta(_ at: Int64, since: Int64) -> String { "+\(max(0, at - since)) s" }
}
