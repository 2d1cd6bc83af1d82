import Foundation

extension PostgresTestServer {
    /// Settings of a primary whose commits wait until a standby has flushed their WAL.
    static let synchronousPrimarySettings = [
        "wal_level=replica", "synchronous_standby_names=*", "synchronous_commit=on", "max_wal_senders=5", "wal_keep_size=64MB",
    ]

    /// Makes and starts a streaming standby of this server: `pg_basebackup -R`
    /// into a new private cluster directory (blocks the calling thread).
    func startStandbyBlocking() throws -> PostgresTestServer {
        Blocking.requireOffPool("PostgresTestServer.startStandbyBlocking")
        guard !isExternal, let binDirectory else { throw TestHarnessError("an external server cannot be copied") }
        let dir = try Self.makeClusterDirectory()
        let make = { (port: Int) in PostgresTestServer(directory: dir, binDirectory: binDirectory, port: port, password: self.password) }
        let standby = make(Int(try PortAllocator.freePort()))
        // -R writes primary_conninfo (with this password) and standby.signal; the copy streams WAL from here on.
        try standby.run(tool: "pg_basebackup", [
            "-d", "host=127.0.0.1 port=\(port) user=\(user) password=\(password)", "-D", standby.dataDirectory,
            "-R", "-X", "stream", "-c", "fast", "--no-sync",
        ])
        return try Self.launch(standby, orOnAnotherPort: make)
    }

    /// `pg_ctl promote -w`: ends recovery and returns once the server accepts writes (blocks).
    func promoteBlocking() throws {
        Blocking.requireOffPool("PostgresTestServer.promoteBlocking")
        try run(tool: "pg_ctl", ["promote", "-w", "-t", "60", "-D", dataDirectory])
    }

    /// One value from `psql -At -c sql` on this server (blocks).
    func scalarBlocking(_ sql: String) throws -> String {
        Blocking.requireOffPool("PostgresTestServer.scalarBlocking")
        guard let binDirectory else { throw TestHarnessError("no client binaries for an external server") }
        let output = try ChildProcess.run(binDirectory.appendingPathComponent("psql").path,
                                          ["-X", "-At", "-d", url, "-c", sql], directory: nil)
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
