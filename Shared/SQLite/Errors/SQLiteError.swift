public import MailwakeErrors

internal import CLibSQLite

/// A failure of the SQLite layer.
///
/// `code` says what kind of failure it is (stable, for callers to switch on);
/// `resultCode` is SQLite's extended result code when SQLite reported the
/// failure (`787` is `SQLITE_CONSTRAINT_FOREIGNKEY`). The message comes from
/// SQLite or from this module and never contains a bound parameter value.
public struct SQLiteError: CodedError, Equatable {
    /// The kind of failure. Extensible: new codes are added as static members.
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The database file could not be opened or set up.
        public static let cannotOpen = Code(rawValue: "cannot_open")
        /// The SQL could not be compiled (syntax error, unknown table or column).
        public static let sql = Code(rawValue: "sql")
        /// More than one statement where one was expected, or an empty one.
        public static let statementShape = Code(rawValue: "statement_shape")
        /// Wrong number or names of parameters.
        public static let binding = Code(rawValue: "binding")
        /// A constraint failed: `resultCode` tells which (foreign key, unique, not null, check).
        public static let constraint = Code(rawValue: "constraint")
        /// The database is locked by another connection and the busy timeout ran out.
        public static let busy = Code(rawValue: "busy")
        /// The database or its directory is read-only.
        public static let readOnly = Code(rawValue: "read_only")
        /// Disk full or quota reached.
        public static let full = Code(rawValue: "full")
        /// An I/O error.
        public static let io = Code(rawValue: "io")
        /// The file is not a database or is damaged.
        public static let corrupt = Code(rawValue: "corrupt")
        /// The operation was interrupted.
        public static let interrupted = Code(rawValue: "interrupted")
        /// A column holds another type than the one asked for.
        public static let typeMismatch = Code(rawValue: "type_mismatch")
        /// A column name that the result does not have.
        public static let noSuchColumn = Code(rawValue: "no_such_column")
        /// The database was closed.
        public static let closed = Code(rawValue: "closed")
        /// The API was used in a way it does not allow.
        public static let misuse = Code(rawValue: "misuse")
        /// A migration list or an applied migration is inconsistent.
        public static let migration = Code(rawValue: "migration")
        /// An applied migration's SQL changed since it was applied.
        public static let migrationChecksumMismatch = Code(rawValue: "migration_checksum_mismatch")
        /// An online backup failed.
        public static let backup = Code(rawValue: "backup")
        /// Any other SQLite failure (see `resultCode`).
        public static let other = Code(rawValue: "other")
    }

    public var code: Code
    /// SQLite's extended result code, when SQLite reported the failure.
    public var resultCode: Int32?
    /// What went wrong, without any bound value.
    public var message: String

    public init(_ code: Code, _ message: String, resultCode: Int32? = nil) {
        self.code = code
        self.message = message
        self.resultCode = resultCode
    }

    public var description: String {
        var out = "SQLite \(code.rawValue)"
        if let resultCode {
            out += " (\(resultCode)"
            if let text = sqlite3_errstr(resultCode) { out += " " + String(cString: text) }
            out += ")"
        }
        return out + ": " + message
    }

    /// The primary result code (`resultCode & 0xff`).
    public var primaryResultCode: Int32? { resultCode.map { $0 & 0xFF } }

    /// A foreign key constraint failed.
    public var isForeignKeyViolation: Bool { resultCode == SQLITE_CONSTRAINT_FOREIGNKEY_CODE }
    /// A UNIQUE or PRIMARY KEY constraint failed.
    public var isUniqueViolation: Bool {
        resultCode == SQLITE_CONSTRAINT_UNIQUE_CODE || resultCode == SQLITE_CONSTRAINT_PRIMARYKEY_CODE
    }

    /// The error for result code `rc` on `db` (whose message describes the last failure).
    static func from(_ rc: Int32, db: OpaquePointer?, context: Code? = nil, what: String? = nil) -> SQLiteError {
        var message = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
        if let what { message = what + ": " + message }
        return SQLiteError(code(for: rc, context: context), message, resultCode: rc)
    }

    static func code(for rc: Int32, context: Code?) -> Code {
        switch rc & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_CONSTRAINT: .constraint
        case SQLITE_READONLY: .readOnly
        case SQLITE_FULL: .full
        case SQLITE_IOERR: .io
        case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH: .cannotOpen
        case SQLITE_INTERRUPT: .interrupted
        case SQLITE_MISMATCH: .typeMismatch
        case SQLITE_RANGE: .binding
        case SQLITE_MISUSE: .misuse
        default: context ?? .other
        }
    }

    static let closedError = SQLiteError(.closed, "the database is closed")
}

// Extended codes are macros built from shifts, which Swift does not import.
let SQLITE_CONSTRAINT_FOREIGNKEY_CODE: Int32 = SQLITE_CONSTRAINT | (3 << 8)
let SQLITE_CONSTRAINT_PRIMARYKEY_CODE: Int32 = SQLITE_CONSTRAINT | (6 << 8)
let SQLITE_CONSTRAINT_UNIQUE_CODE: Int32 = SQLITE_CONSTRAINT | (8 << 8)
