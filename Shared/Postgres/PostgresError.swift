public import MailwakeErrors

/// A failure talking to PostgreSQL.
///
/// Never carries query parameter values, passwords or the server's `DETAIL`
/// field (which repeats row values, e.g. `Key (email)=(…) already exists`),
/// so it is safe to log. Server errors carry their SQLSTATE in `sqlState`.
public struct PostgresError: CodedError {
    /// What kind of failure this is. Extensible: compare with the static members.
    public struct Code: ErrorCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Could not connect, authentication failed, or the connection was lost.
        public static let connection = Code(rawValue: "connection")
        /// The client could not run the query (bad bindings, unexpected result, misuse).
        public static let query = Code(rawValue: "query")
        /// The server rejected the statement; `sqlState` says why.
        public static let server = Code(rawValue: "server")
        /// A column could not be decoded into the requested Swift type.
        public static let decoding = Code(rawValue: "decoding")
        /// A statement timeout, or no pooled connection became free in time.
        public static let timeout = Code(rawValue: "timeout")
        /// The pool (or listener) was closed.
        public static let poolClosed = Code(rawValue: "pool_closed")
        /// The calling task was cancelled while the statement ran.
        public static let cancelled = Code(rawValue: "cancelled")
        /// A migration could not be applied or an applied one changed.
        public static let migration = Code(rawValue: "migration")
        /// The configuration (URL or fields) is invalid.
        public static let configuration = Code(rawValue: "configuration")

    }

    /// Well-known SQLSTATE codes (PostgreSQL manual, appendix A).
    public enum SQLState {
        public static let uniqueViolation = "23505"
        public static let foreignKeyViolation = "23503"
        public static let notNullViolation = "23502"
        public static let checkViolation = "23514"
        public static let serializationFailure = "40001"
        public static let deadlockDetected = "40P01"
        public static let queryCanceled = "57014"
        public static let lockNotAvailable = "55P03"
        public static let undefinedTable = "42P01"
        public static let syntaxError = "42601"
        public static let invalidTextRepresentation = "22P02"
        public static let adminShutdown = "57P01"
        public static let crashShutdown = "57P02"
        public static let cannotConnectNow = "57P03"
        /// A write on a read-only server (a standby after a failover).
        public static let readOnlySQLTransaction = "25006"
        public static let featureNotSupported = "0A000"
        public static let invalidSQLStatementName = "26000"
    }

    public var code: Code
    /// A human-readable message without parameter values.
    public var message: String
    /// The server's SQLSTATE (five characters) for `.server` and server-side timeouts.
    public var sqlState: String?
    /// Schema object names the server reported (never row values).
    public var constraintName: String?
    public var tableName: String?
    public var columnName: String?

    public init(_ code: Code, _ message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }

    /// True for `23505 unique_violation`.
    public var isUniqueViolation: Bool { sqlState == SQLState.uniqueViolation }

    /// True when retrying the whole transaction may succeed (serialization failure, deadlock).
    public var isTransient: Bool {
        sqlState == SQLState.serializationFailure || sqlState == SQLState.deadlockDetected
    }

    public var description: String {
        var out = "postgres \(code.rawValue) error"
        if let sqlState { out += " \(sqlState)" }
        out += ": " + message
        if let constraintName { out += " (constraint \(constraintName))" }
        return out
    }

    /// Removes what may quote a value from a server message. Messages of
    /// class 22 (data exception) end with the offending input after a colon,
    /// e.g. `invalid input syntax for type integer: "abc"`; cut it off.
    static func redacted(message: String, sqlState: String?) -> String {
        guard let state = sqlState, state.hasPrefix("22") else { return message }
        if let colon = message.firstRange(of: ": ") { return String(message[..<colon.lowerBound]) }
        return message
    }
}
