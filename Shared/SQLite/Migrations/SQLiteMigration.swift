import MailwakeCrypto
/// One schema change, applied once, in version order.
///
/// The SQL may hold several statements and runs inside the migrator's
/// transaction (so it must not BEGIN or COMMIT itself). Once applied, a
/// migration must never change: its checksum is recorded and checked on
/// every start. Add a new migration instead.
public struct SQLiteMigration: Sendable, Hashable {
    /// A positive number; migrations apply in ascending order.
    public let version: Int64
    /// A short description (`create mailboxes`).
    public let name: String
    public let sql: String

    public init(version: Int64, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// `sha256:` and the hex SHA-256 of the SQL text exactly as given.
    public var checksum: String { "sha256:" + SHA256.hash(Array(sql.utf8)).hex }
}
