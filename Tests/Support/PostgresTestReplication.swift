import Foundation

/// A primary PostgreSQL with one synchronous streaming standby, each a
/// private cluster, and a multi-host URL naming both (`target_session_attrs=read-write`).
///
/// The primary runs with `synchronous_standby_names='*'` and
/// `synchronous_commit=on`, so a commit returns only once the standby has
/// flushed it; the standby is a `pg_basebackup -R` copy (hot standby).
/// `killPrimary()` SIGKILLs the primary's processes, `promoteStandby()` runs
/// `pg_ctl promote` (what Patroni does after its leader key expires). As root,
/// both servers run as the `postgres` system user, like `PostgresTestServer`.
public final class PostgresTestReplication: Sendable {
    public let primary: PostgresTestServer
    public let standby: PostgresTestServer
    /// Both servers as one for clients: its `url` and `url(database:)` list the primary, then the standby.
    public let clients: PostgresTestServer

    private init(primary: PostgresTestServer, standby: PostgresTestServer) {
        self.primary = primary
        self.standby = standby
        clients = PostgresTestServer(externalURL: "postgres://\(primary.user):\(primary.password)@127.0.0.1:\(primary.port)," +
                                                  "127.0.0.1:\(standby.port)/postgres"
                                         + "?sslmode=disable&target_session_attrs=read-write")
    }

    /// Starts the primary and the standby; returns once the standby streams as the synchronous one.
    public static func start() async throws -> PostgresTestReplication {
        try await Blocking.run {
            let primary = try PostgresTestServer.startBlocking(settings: PostgresTestServer.synchronousPrimarySettings)
            do {
                let standby = try primary.startStandbyBlocking()
                let pair = PostgresTestReplication(primary: primary, standby: standby)
                do {
                    try pair.waitUntilSynchronousBlocking()
                } catch {
                    pair.stop()
                    throw error
                }
                return pair
            } catch {
                primary.stop()
                throw error
            }
        }
    }

    private func waitUntilSynchronousBlocking() throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (try? primary.scalarBlocking("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync' AND state = " +
                                            "'streaming'")) == "1" { return }
            usleep(50_000)
        }
        throw TestHarnessError("the standby did not become the synchronous standby within 60 s: \(standby.logTail())")
    }

    /// SIGKILLs the primary's postmaster and every backend, as a crash of its machine would.
    public func killPrimary() async {
        await primary.kill()
    }

    /// Promotes the standby (`pg_ctl promote -w`); returns once it accepts writes.
    public func promoteStandby() async throws {
        try await Blocking.run {
            try self.standby.promoteBlocking()
            // pg_ctl -w waits for the end of recovery; make sure a read-write session sees it.
            let deadline = Date().addingTimeInterval(60)
            while (try? self.standby.scalarBlocking("SELECT pg_is_in_recovery()")) != "f" {
                guard Date() < deadline else { throw TestHarnessError("the standby still recovers 60 s after promotion: " +
                                                                      "\(self.standby.logTail())") }
                usleep(20_000)
            }
        }
    }

    /// Whether the standby is still a standby (`pg_is_in_recovery()`).
    public func standbyIsInRecovery() async throws -> Bool {
        try await Blocking.run { try self.standby.scalarBlocking("SELECT pg_is_in_recovery()") == "t" }
    }

    /// Stops both servers and removes their directories.
    public func stop() {
        standby.stop()
        primary.stop()
    }
}
