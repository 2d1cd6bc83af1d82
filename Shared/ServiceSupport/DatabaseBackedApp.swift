public import MailwakeCore
public import MailwakePostgres

/// A service whose state is in PostgreSQL (the relay, accounts): what its
/// `serve` and `migrate` commands need of it (`DatabaseServiceCommands`).
public protocol DatabaseBackedApp: Sendable {
    /// The pool; `serve` runs it among the services and `migrate` closes it.
    var database: PostgresClient { get }
    /// How long start-up retries PostgreSQL before giving up (`DATABASE_START_TIMEOUT`).
    var databaseStartTimeout: Duration { get }
    /// Applies pending migrations; returns the versions applied.
    func migrate() async throws -> [Int64]
    /// Everything `serve` runs: listeners, background services and the pool.
    func services() -> [any Service]
    /// What the start-up log line says of this instance.
    var startingLogFields: [String: LogValue] { get }
    /// Stops outbound clients once the services ended.
    func shutdownClients()
}

extension DatabaseBackedApp {
    public var startingLogFields: [String: LogValue] { [:] }
    public func shutdownClients() {}
}
