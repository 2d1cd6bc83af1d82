import MailwakeProtocol
import Synchronization

/// Counts of the `/3/device` requests answered: by status, by reason, in
/// total, and the connections they came on.
public final class SimulatorStatistics: Sendable {
    private struct State {
        var total = 0
        var byStatus: [Int: Int] = [:]
        var byReason: [String: Int] = [:]
        var connections: Set<UInt64> = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Counts one answered request.
    public func count(status: Int, reason: String?, connection: UInt64) {
        state.withLock { s in
            s.total += 1
            s.byStatus[status, default: 0] += 1
            if let reason { s.byReason[reason, default: 0] += 1 }
            s.connections.insert(connection)
        }
    }

    /// `{"total":N,"by_status":{"200":N},"by_reason":{"Unregistered":N},"connections":N,...,"provider_tokens":[...]}`,
    /// with the transport's connection counts and the deliveries held.
    func json(connectionsAccepted: UInt64, connectionsOpen: UInt64, deliveriesHeld: Int, tokenVerifications: Int,
              providerTokens: [ProviderTokenLedger.Counts]) -> [UInt8] {
        let s = state.withLock { $0 }
        var w = JSONWriter()
        w.beginObject()
        w.int("total", Int64(s.total))
        w.beginObject("by_status")
        for (status, n) in s.byStatus.sorted(by: { $0.key < $1.key }) { w.int(String(status), Int64(n)) }
        w.endObject()
        w.beginObject("by_reason")
        for (reason, n) in s.byReason.sorted(by: { $0.key < $1.key }) { w.int(reason, Int64(n)) }
        w.endObject()
        w.int("connections", Int64(s.connections.count))
        w.uint("connections_accepted", connectionsAccepted)
        w.uint("connections_open", connectionsOpen)
        w.int("deliveries_held", Int64(deliveriesHeld))
        w.int("provider_token_verifications", Int64(tokenVerifications))
        w.beginArray("provider_tokens")
        for c in providerTokens {
            w.beginObject()
            w.string("team_id", c.teamID)
            w.string("key_id", c.keyID)
            w.int("distinct_tokens", Int64(c.distinctTokens))
            w.int("refreshes", Int64(c.refreshes))
            w.int("too_many_provider_token_updates", Int64(c.tooManyUpdates))
            w.int("requests_with_replaced_token", Int64(c.requestsWithReplacedToken))
            w.int("current_since_ms", c.currentSinceMS)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}
