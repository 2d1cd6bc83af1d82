public import MailwakeProtocol

/// What to do with new mail of one scope: every mailbox, one mailbox, or
/// one folder of a mailbox (the most specific rule wins). A message is
/// notified unless the rule is off, it is quiet time, the sender matches a
/// deny pattern, or allow patterns exist and none matches. `show` limits
/// what a notification carries; with nothing shown it says only "New mail".
public struct NotificationRule: Sendable, Equatable {
    /// The fields a notification may carry.
    public enum Field: String, Sendable, CaseIterable {
        case sender, subject, code
    }

    public var mailboxID: Int64?
    public var folder: String?
    public var enabled: Bool = true
    /// Minutes after local midnight; quiet from `start` up to `end` (may wrap past midnight).
    public var quietHours: (start: Int, end: Int)?
    /// Sender address patterns (`*` any run, `?` one character), case-insensitive.
    public var allowSenders: [String] = []
    public var denySenders: [String] = []
    public var show: Set<Field> = Set(Field.allCases)

    public init(mailboxID: Int64? = nil, folder: String? = nil) {
        self.mailboxID = mailboxID
        self.folder = folder
    }

    public static func == (a: NotificationRule, b: NotificationRule) -> Bool {
        a.mailboxID == b.mailboxID && a.folder == b.folder && a.enabled == b.enabled && a.quietHours?.start == b.quietHours?.start
            && a.quietHours?.end == b.quietHours?.end && a.allowSenders == b.allowSenders && a.denySenders == b.denySenders
                && a.show == b.show
    }

    /// What the rule decides for a message.
    public enum Decision: Sendable, Equatable {
        case notify(NotificationContent)
        case suppress(reason: String)
    }

    /// The decision for `content` when the local time is `minuteOfDay` (0–1439).
    public func decide(_ content: NotificationContent, minuteOfDay: Int) -> Decision {
        guard enabled else { return .suppress(reason: "notifications are off for this scope") }
        if let quiet = quietHours, Self.isQuiet(minuteOfDay, quiet) { return .suppress(reason: "quiet hours") }
        let sender = content.from.address.lowercased()
        if denySenders.contains(where: { Self.matches(sender,
                                                      pattern: $0) }) { return .suppress(reason: "the sender matches a deny pattern") }
        if !allowSenders.isEmpty, !allowSenders.contains(where: { Self.matches(sender, pattern: $0) }) {
            return .suppress(reason: "the sender matches no allow pattern")
        }
        return .notify(redacted(content))
    }

    /// `content` with only the shown fields; nothing shown reads "New mail".
    public func redacted(_ content: NotificationContent) -> NotificationContent {
        var c = content
        if !show.contains(.sender) { c.from = .init(name: "", address: "") }
        if !show.contains(.subject) { c.subject = "" }
        if !show.contains(.code) { c.code = nil }
        if show.isEmpty { c.subject = "New mail" }
        return c
    }

    static func isQuiet(_ minute: Int, _ quiet: (start: Int, end: Int)) -> Bool {
        if quiet.start == quiet.end { return false }
        return quiet.start < quiet.end ? (minute >= quiet.start && minute < quiet.end) : (minute >= quiet.start || minute < quiet.end)
    }

    /// Glob match (`*`, `?`), case-insensitive, whole string.
    static func matches(_ text: String, pattern: String) -> Bool {
        let t = Array(text.lowercased().unicodeScalars), p = Array(pattern.lowercased().unicodeScalars)
        var ti = 0, pi = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "?" || p[pi] == t[ti] {
                ti += 1
                pi += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// "HH:MM-HH:MM" to minutes; nil when malformed.
    public static func parseQuietHours(_ text: String) -> (start: Int, end: Int)? {
        let parts = text.split(separator: "-")
        guard parts.count == 2, let start = minutes(parts[0]), let end = minutes(parts[1]) else { return nil }
        return (start, end)
    }

    private static func minutes(_ text: Substring) -> Int? {
        let hm = text.split(separator: ":")
        guard hm.count == 2, hm[0].count <= 2, hm[1].count == 2, let h = Int(hm[0]), let m = Int(hm[1]), (0..<24).contains(h),
              (0..<60).contains(m) else {
            return nil
        }
        return h * 60 + m
    }

    /// "22:00-07:00".
    public static func formatQuietHours(_ q: (start: Int, end: Int)) -> String {
        func f(_ m: Int) -> String { (m / 60 < 10 ? "0" : "") + "\(m / 60):" + (m % 60 < 10 ? "0" : "") + "\(m % 60)" }
        return "\(f(q.start))-\(f(q.end))"
    }
}
