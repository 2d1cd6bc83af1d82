import MailwakePostgres
public import TestSupport

/// Fresh databases on the test PostgreSQL server.
public enum StackDatabases {
    /// Creates `<prefix>_<random>` and returns its name.
    public static func create(prefix: String, on postgres: PostgresTestServer) async throws -> String {
        let name = "\(prefix)_\(UInt64.random(in: 0..<UInt64.max))"
        let admin = PostgresClient(configuration: try .init(url: postgres.url), logger: .disabled)
        try await admin.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        await admin.close()
        return name
    }
}
