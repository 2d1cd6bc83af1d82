import MailwakePostgres
@testable import RelayService
import TestSupport

/// A relay database of its own on the shared test PostgreSQL, migrated to the current schema.
enum RelayTestDatabase {
    /// Creates and migrates a database named `prefix` and a random suffix.
    ///
    /// - Parameter sessionSettings: settings for each of the client's sessions (the relay's planner settings, say).
    static func fresh(prefix: String, sessionSettings: [String: String] = [:]) async throws -> PostgresClient {
        let postgres = try await PostgresTestServer.shared()
        let name = "\(prefix)_\(UInt64.random(in: 0..<UInt64.max))"
        let admin = PostgresClient(configuration: try .init(url: postgres.url), logger: .disabled)
        try await admin.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        await admin.close()
        var configuration = try PostgresClient.Configuration(url: postgres.url(database: name))
        configuration.sessionSettings = sessionSettings
        let database = PostgresClient(configuration: configuration, logger: .disabled)
        try await PostgresMigrator(RelayMigrations.all, logger: .disabled).migrate(database)
        return database
    }
}
