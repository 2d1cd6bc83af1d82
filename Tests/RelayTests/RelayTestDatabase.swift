import MailwakePostgres
@testable import RelayService
import StackSupport
import TestSupport

/// A relay database of its own on the shared test PostgreSQL, migrated to the current schema.
enum RelayTestDatabase {
    /// Creates and migrates a database named `prefix` and a random suffix.
    ///
    /// - Parameters:
    ///   - sessionSettings: settings for each of the client's sessions (the relay's planner settings, say).
    ///   - migrations: the migrations applied (all of them unless a test wants an older schema).
    static func fresh(prefix: String, sessionSettings: [String: String] = [:],
                      migrations: [PostgresMigration] = RelayMigrations.all) async throws -> PostgresClient {
        let postgres = try await PostgresTestServer.shared()
        let name = try await StackDatabases.create(prefix: prefix, on: postgres)
        var configuration = try PostgresClient.Configuration(url: postgres.url(database: name))
        configuration.sessionSettings = sessionSettings
        let database = PostgresClient(configuration: configuration, logger: .disabled)
        try await PostgresMigrator(migrations, logger: .disabled).migrate(database)
        return database
    }
}
