public import MailwakeCore

/// One schema change: applied once, in `version` order, never edited after release.
public struct PostgresMigration: Sendable, Hashable {
    public let version: Int64
    public let name: String
    /// SQL text, possibly several statements; runs inside a transaction.
    public let sql: String

    public init(version: Int64, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Lower-case hex SHA-256 of the SQL text (UTF-8).
    public var checksum: String { SHA256Digest.hex(Array(sql.utf8)) }
}

/// Applies versioned migrations at start.
///
/// Every step runs in a transaction holding `pg_advisory_xact_lock(lockKey)`,
/// so several instances starting at once apply each migration exactly once.
/// Applied migrations are recorded in `schema_migrations` (version, name,
/// SHA-256 checksum, time); a recorded migration whose SQL changed since is an
/// error (`.migration`), as are duplicate or unordered versions.
public struct PostgresMigrator: Sendable {
    /// Default advisory lock key: "mailwake" in ASCII.
    public static let defaultLockKey: Int64 = 0x6D61_696C_7761_6B65

    public let migrations: [PostgresMigration]
    public let tableName: String
    public let lockKey: Int64
    let logger: Logger

    public init(_ migrations: [PostgresMigration], tableName: String = "schema_migrations", lockKey: Int64 = defaultLockKey, logger: Logger) {
        self.migrations = migrations
        self.tableName = tableName
        self.lockKey = lockKey
        self.logger = logger
    }

    /// Applies what is pending; returns the versions this call applied.
    @discardableResult
    public func migrate(_ client: PostgresClient) async throws -> [Int64] {
        for (a, b) in zip(migrations, migrations.dropFirst()) where a.version >= b.version {
            throw PostgresError(.migration, "migration versions must be unique and ascending (\(a.version) then \(b.version))")
        }
        let table = PostgresQuery.quoteIdentifier(tableName)
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })

        // Create the table and check every recorded checksum before changing anything.
        let applied: [Int64: String] = try await client.withTransaction { tx in
            try await lock(tx)
            try await tx.runScript("""
                CREATE TABLE IF NOT EXISTS \(table) (
                    version bigint PRIMARY KEY,
                    name text NOT NULL,
                    checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            let rows = try await tx.query(PostgresQuery(unsafeSQL: "SELECT version, name, checksum FROM \(table) ORDER BY version"))
            var applied: [Int64: String] = [:]
            for row in rows {
                let (version, name, checksum) = try row.decode((Int64, String, String).self)
                applied[version] = checksum
                if let local = known[version] {
                    guard local.checksum == checksum else {
                        throw PostgresError(.migration, "applied migration \(version) (\(name)) has changed since it was applied: checksum mismatch")
                    }
                } else {
                    logger.warning("database has a migration this build does not know", ["version": .int(version), "name": .string(name)])
                }
            }
            return applied
        }

        var done: [Int64] = []
        for migration in migrations where applied[migration.version] == nil {
            let appliedNow = try await client.withTransaction { tx -> Bool in
                try await lock(tx)
                let existing = try await tx.query(PostgresQuery(unsafeSQL: "SELECT checksum FROM \(table) WHERE version = $1", bindings: {
                    var b = PostgresBindings()
                    b.append(migration.version)
                    return b
                }()))
                if let row = existing.first {
                    // Another instance applied it while we waited for the lock.
                    guard try row.decode(String.self, at: 0) == migration.checksum else {
                        throw PostgresError(.migration, "migration \(migration.version) (\(migration.name)) was applied with different SQL: checksum mismatch")
                    }
                    return false
                }
                do {
                    try await tx.runScript(migration.sql)
                } catch let error as PostgresError {
                    var wrapped = PostgresError(.migration, "migration \(migration.version) (\(migration.name)) failed: \(error.message)", sqlState: error.sqlState)
                    wrapped.constraintName = error.constraintName
                    throw wrapped
                }
                var b = PostgresBindings()
                b.append(migration.version)
                b.append(migration.name)
                b.append(migration.checksum)
                try await tx.execute(PostgresQuery(unsafeSQL: "INSERT INTO \(table) (version, name, checksum) VALUES ($1, $2, $3)", bindings: b))
                return true
            }
            if appliedNow {
                logger.info("migration applied", ["version": .int(migration.version), "name": .string(migration.name)])
                done.append(migration.version)
            }
        }
        return done
    }

    private func lock(_ tx: PostgresConnection) async throws {
        try await tx.query("SELECT pg_advisory_xact_lock(\(lockKey))")
    }
}

/// SHA-256 (FIPS 180-4), for migration checksums only.
enum SHA256Digest {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var data = message
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        appendBigEndian(UInt64(message.count) * 8, to: &data)
        var w = [UInt32](repeating: 0, count: 64)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                w[i] = UInt32(data[chunk + 4 * i]) << 24 | UInt32(data[chunk + 4 * i + 1]) << 16 | UInt32(data[chunk + 4 * i + 2]) << 8 | UInt32(data[chunk + 4 * i + 3])
            }
            for i in 16..<64 {
                let s0 = w[i - 15].rotr(7) ^ w[i - 15].rotr(18) ^ (w[i - 15] >> 3)
                let s1 = w[i - 2].rotr(17) ^ w[i - 2].rotr(19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
            for i in 0..<64 {
                let s1 = e.rotr(6) ^ e.rotr(11) ^ e.rotr(25)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                let s0 = a.rotr(2) ^ a.rotr(13) ^ a.rotr(22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e; h[5] &+= f; h[6] &+= g; h[7] &+= hh
        }
        var out: [UInt8] = []
        for v in h { appendBigEndian(v, to: &out) }
        return out
    }

    static func hex(_ message: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in hash(message) {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension UInt32 {
    fileprivate func rotr(_ n: UInt32) -> UInt32 { self >> n | self << (32 - n) }
}
