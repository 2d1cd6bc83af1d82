/// The Live Activity fields of a `live-activity` envelope (PROTOCOL.md §3, §5).
public struct ActivityInfo: Sendable, Hashable, Encodable {
    /// The lifecycle event of a Live Activity.
    public enum Event: String, Sendable, Hashable, Codable, CaseIterable {
        case start, update, end
    }

    /// The longest activity id accepted, in UTF-8 bytes.
    public static let maxIDBytes = 128

    /// The activity identifier (ASCII letters, digits, `-`, `_`, `.`).
    public var id: String
    public var event: Event
    /// The content timestamp (Unix seconds).
    public var timestamp: UInt64
    /// When the content becomes stale (Unix seconds), 0 when absent.
    public var staleDate: UInt64
    /// When an ended activity is dismissed (Unix seconds), 0 when absent.
    public var dismissalDate: UInt64

    public init(id: String, event: Event, timestamp: UInt64, staleDate: UInt64 = 0, dismissalDate: UInt64 = 0) {
        self.id = id
        self.event = event
        self.timestamp = timestamp
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, event, timestamp
        case staleDate = "stale_date"
        case dismissalDate = "dismissal_date"
    }

    /// The keys of an activity object.
    static let fieldNames = CodingKeys.allCases.map(\.rawValue)

    /// Decodes an activity object strictly.
    public static func decode(_ json: [UInt8]) throws(ProtocolError) -> ActivityInfo {
        try ActivityInfo(fields: StrictJSON.Fields(StrictJSON.parse(json), allowed: fieldNames, in: "activity"))
    }

    /// Reads the fields of a parsed activity object.
    init(fields c: StrictJSON.Fields) throws(ProtocolError) {
        id = try c.string("id", maxBytes: Self.maxIDBytes)
        guard Self.isValidID(id) else { throw .malformed("activity.id has characters outside A-Z a-z 0-9 - _ .") }
        guard let e = Event(rawValue: String(decoding: try c.stringBytes("event"), as: UTF8.self)) else {
            throw .malformed("activity.event must be start, update or end")
        }
        event = e
        timestamp = try c.unsigned("timestamp")
        staleDate = try c.unsigned("stale_date")
        dismissalDate = try c.unsigned("dismissal_date")
    }

    /// Whether `id` is 1...128 characters of `A-Z a-z 0-9 - _ .`.
    public static func isValidID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= maxIDBytes else { return false }
        return id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: ".")
        }
    }

    func write(to w: inout JSONWriter, key: String) {
        w.beginObject(key)
        w.string("id", id)
        w.string("event", event.rawValue)
        w.uint("timestamp", timestamp)
        w.uint("stale_date", staleDate)
        w.uint("dismissal_date", dismissalDate)
        w.endObject()
    }
}
