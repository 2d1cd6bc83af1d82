import MailwakePostgres
@testable import RelayService
import StackSupport
import TestSupport

/// A relay database of its own on the shared test PostgreSQL, migrated to the current schema.
enum RelayTestDatabase {
    /// Creates and migrates a database named `prefix` and a random suffix.
    ///
    /// - Parameter sessionSettings: settings for each of the client's sessions (the relay's planner settings, say).
    static func fresh(prefix: String, sessionSettings: [String: String] = [:]) async throws -> PostgresClient {
        let postgres = try await PostgresTestServer.shared()
        let name = try await StackDatabases.create(prefix: prefix, on: postgres)
        var configuration = try PostgresClient.Configuration(url: postgres.url(database: name))
        configuration.sessionSettings = sessionSettings
        let database = PostgresClient(configuration: configuration, logger: .disabled)
        try await PostgresMigrator(RelayMigrations.all, logger: .disabled).migrate(database)
        return database
    }
}
