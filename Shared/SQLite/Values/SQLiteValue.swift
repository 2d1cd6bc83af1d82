/// One SQLite value: the five storage classes.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The storage class name as SQLite spells it (`INTEGER`, `TEXT`...), for messages.
    public var typeName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }

    public var isNull: Bool { self == .null }
}
