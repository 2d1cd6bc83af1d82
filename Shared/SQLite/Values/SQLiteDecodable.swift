/// A Swift value that can be read from a result column.
///
/// Decoding is strict: an INTEGER column does not decode as `String`, a TEXT
/// column does not decode as `Int64`, and NULL decodes only into an `Optional`.
public protocol SQLiteDecodable: Sendable {
    /// The value, or nil when `sqliteValue` has another type.
    init?(sqliteValue: SQLiteValue)
}

extension SQLiteValue: SQLiteDecodable {
    public init?(sqliteValue: SQLiteValue) { self = sqliteValue }
}

extension Int64: SQLiteDecodable {
    public init?(sqliteValue: SQLiteValue) {
        guard case .integer(let v) = sqliteValue else { return nil }
        self = v
    }
}

extension Int: SQLiteDecodable {
    public init?(sqliteValue: SQLiteValue) {
        guard case .integer(let v) = sqliteValue, let n = Int(exactly: v) else { return nil }
        self = n
    }
}

extension Int32: SQLiteDecodable {
    public init?(sqliteValue: SQLiteValue) {
        guard case .integer(let v) = sqliteValue, let n = Int32(exactly: v) else { return nil }
        self = n
    }
}

/// REAL columns, and INTEGER columns (SQLite stores whole REAL values of untyped columns as integers).
extension Double: SQLiteDecodable {
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .real(let v): self = v
        case .integer(let v): self = Double(v)
        default: return nil
        }
    }
}

extension String: SQLiteDecodable {
    public init?(sqliteValue: SQLiteValue) {
        guard case .text(let v) = sqliteValue else { return nil }
        self = v
    }
}

extension Array: SQLiteDecodable where Element == UInt8 {
    public init?(sqliteValue: SQLiteValue) {
        guard case .blob(let v) = sqliteValue else { return nil }
        self = v
    }
}

/// INTEGER 0 or 1.
extension Bool: SQLiteDecodable {
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .integer(0): self = false
        case .integer(1): self = true
        default: return nil
        }
    }
}

/// NULL decodes as `nil`; anything else as `Wrapped`.
extension Optional: SQLiteDecodable where Wrapped: SQLiteDecodable {
    public init?(sqliteValue: SQLiteValue) {
        if case .null = sqliteValue {
            self = .none
            return
        }
        guard let v = Wrapped(sqliteValue: sqliteValue) else { return nil }
        self = .some(v)
    }
}
