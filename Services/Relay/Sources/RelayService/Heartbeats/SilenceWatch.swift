public import MailwakeCore
public import MailwakePostgres

/// Finds outposts with active pairings whose last heartbeat is older than
/// `OUTPOST_SILENCE`, marks them silent and queues one `outpost-silent`
/// alert per paired device, in one transaction per batch (rows locked with
/// SKIP LOCKED: two instances never raise the same transition).
public struct SilenceWatch: Service {
    public var name: String { "silence-watch" }
    let database: PostgresClient
    let configuration: RelayConfiguration
    let logger: Logger
    let clockMS: @Sendable () -> Int64

    /// A watch over `database` (the heartbeat benchmark times its passes).
    public init(database: PostgresClient, configuration: RelayConfiguration, logger: Logger, clockMS: @escaping @Sendable () -> Int64) {
        self.database = database
        self.configuration = configuration
        self.logger = logger
        self.clockMS = clockMS
    }

    /// Outposts marked silent per transaction at most.
    static let batch = 500

    /// How often to look: a quarter of the silence, between 0.2 and 15 seconds.
    var interval: Duration {
        .milliseconds(min(15_000, max(200, configuration.outpostSilence * 1000 / 4)))
    }

    public func run() async throws {
        while !Task.isCancelled {
            do {
                try await check()
            } catch {
                logger.warning("silence check failed; retrying", ["error": .string("\(error)")])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// One pass; returns the outposts newly marked silent.
    @discardableResult
    public func check() async throws -> [String] {
        var silenced: [String] = []
        while true {
            let nowMS = clockMS()
            let batch = try await database.withTransaction { connection in
                let rows = try await connection.query("""
                    UPDATE outpost_heartbeats h SET state = 'silent', silent_at_ms = \(nowMS)
                    WHERE h.outpost_id IN (
                        SELECT s.outpost_id FROM outpost_heartbeats s
                        WHERE s.state = 'alive' AND s.last_seen_ms < \(nowMS - configuration.outpostSilence * 1000)
                          AND EXISTS (SELECT 1 FROM pairings p WHERE p.outpost_id = s.outpost_id AND p.state = 'active')
                        ORDER BY s.last_seen_ms
                        LIMIT \(Int64(Self.batch))
                        FOR UPDATE SKIP LOCKED)
                      AND h.state = 'alive'
                    RETURNING h.outpost_id, h.last_seen_ms
                    """).map { try $0.decode((String, Int64).self) }
                for (outpostID, lastSeenMS) in rows {
                    try await SystemAlertQueue.queue(SystemAlert(kind: .outpostSilent, outpostID: outpostID, since: lastSeenMS / 1000),
                                                     on: connection, nowMS: nowMS, maxAge: configuration.maxEnvelopeAge)
                }
                return rows.map { $0.0 }
            }
            silenced += batch
            for outpostID in batch { logger.info("outpost silent; alert queued", ["outpost_id": .string(outpostID)]) }
            if batch.count < Self.batch { return silenced }
        }
    }
}
