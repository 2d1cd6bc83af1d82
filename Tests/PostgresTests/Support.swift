import Foundation
import MailwakeCore
import MailwakePostgres
import TestSupport

/// Helpers shared by the PostgreSQL tests.
enum PG {
    /// The shared test server.
    static func server() async throws -> PostgresTestServer { try await PostgresTestServer.shared() }

    /// A configuration for `url` with a unique application name (to find this
    /// test's sessions in `pg_stat_activity`).
    static func configuration(_ url: String, poolSize: Int = 4,
                              applicationName: String = PG.uniqueName("mwtest")) throws -> PostgresClient.Configuration {
        var c = try PostgresClient.Configuration(url: url)
        c.poolSize = poolSize
        c.applicationName = applicationName
        // Generous: no test here is about the connect timeout (those set their own), and a loaded CI
        // machine has stalled a connect for more than 5 s.
        c.connectTimeout = .seconds(60)
        c.checkoutTimeout = .seconds(30)
        return c
    }

    static func client(poolSize: Int = 4, url: String? = nil, logger: Logger = .disabled,
                       configure: (inout PostgresClient.Configuration) -> Void = { _ in }) async throws -> PostgresClient {
        let target: String
        if let url { target = url } else { target = try await server().url }
        var c = try configuration(target, poolSize: poolSize)
        configure(&c)
        return PostgresClient(configuration: c, logger: logger)
    }

    /// A lower-case identifier unique to this process and call.
    static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
    }

    /// A new empty database on the shared server; returns its URL.
    static func freshDatabase() async throws -> String {
        let server = try await server()
        let name = uniqueName("mwdb")
        let admin = try await client(poolSize: 1)
        try await admin.withConnection { try await $0.runScript("CREATE DATABASE " + PostgresQuery.quoteIdentifier(name)) }
        await admin.close()
        return server.url(database: name)
    }

    /// Runs `body` with a client and closes it afterwards, even on failure.
    static func withClient<T>(poolSize: Int = 4, url: String? = nil, logger: Logger = .disabled,
                              configure: (inout PostgresClient.Configuration) -> Void = { _ in },
                              _ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = try await client(poolSize: poolSize, url: url, logger: logger, configure: configure)
        do {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }

    /// Waits until a statement containing `text` runs on the server, seen in
    /// pg_stat_activity through `observer` (connected beforehand, so the
    /// statement cannot come and go while the observer connects): "the pool's
    /// connection is busy" without guessing how long that takes on a loaded machine.
    static func waitUntilRunning(_ text: String, observer: PostgresClient, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await observer.query("""
                                       SELECT count(*)::int8 FROM pg_stat_activity WHERE state = 'active' AND strpos(query, \(text)) > \
                                       0 AND pid <> pg_backend_pid()
                                       """)
            .scalar(Int.self) == 0 {
            guard ContinuousClock.now < deadline else { throw PostgresError(.timeout, "\(text) never ran") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A connected one-connection client for `waitUntilRunning`.
    static func observer() async throws -> PostgresClient {
        let observer = try await client(poolSize: 1)
        _ = try await observer.query("SELECT 1")
        return observer
    }

    /// The `PostgresError` `body` throws, or nil when it throws nothing or something else.
    static func error<T>(_ body: () async throws -> T) async -> PostgresError? {
        do {
            _ = try await body()
            return nil
        } catch let e as PostgresError {
            return e
        } catch {
            return nil
        }
    }
}
