import MailwakeCore
import Synchronization

/// One APNs provider token for every relay instance on the database
/// (docs/relay.md, "One provider token for all instances").
///
/// The current token lives in `apns_provider_tokens`; each instance holds a
/// copy in memory (`APNsProviderToken`) for the per-request fast path, reads
/// the table every `syncInterval` and whenever its copy is due or APNs
/// refused it, and renews it, under the lease of `ProviderTokenStore`, only
/// when the table's token is `refreshAfter` old. Refusals:
///
/// - `TooManyProviderTokenUpdates`: read the table (another instance may hold
///   a newer token); never sign.
/// - `ExpiredProviderToken` / `MissingProviderToken`: renew under the lease
///   when the refused token is at least 20 minutes old; a younger one is
///   kept (Apple would throttle its replacement; the refusal means a skewed
///   clock, not a bad token).
/// - `InvalidProviderToken` for the token of the current key: renew under
///   the lease whatever its age, once per refused token (it will never
///   become valid, and waiting 20 minutes stops every delivery).
///
/// PostgreSQL unreachable: the copy in memory is used while it lasts; when
/// it is missing or would expire, the instance signs its own (degraded,
/// logged, `mailwake_relay_apns_token_degraded_total`) and publishes it once
/// the table answers again, unless another instance renewed meanwhile.
final class SharedProviderToken: Service, Sendable {
    var name: String { "apns-provider-token" }
    /// Apple throttles tokens replaced sooner than this (seconds).
    static let minimumRenewAge: Int64 = 1200
    /// Apple refuses tokens older than this (seconds).
    static let maximumAge: Int64 = 3600

    let local: APNsProviderToken
    let store: ProviderTokenStore
    private let logger: Logger
    private let syncInterval: Duration
    private let wakeup = ProviderTokenWakeup()
    private let inFlight = Mutex<Task<Void, Never>?>(nil)
    /// A token signed in degraded mode that the table does not hold yet.
    private let unpublished = Mutex<APNsProviderToken.Issued?>(nil)
    /// The refused token already being handled: further refusals of it only join the read under way.
    private let handledRefusal = Mutex<(token: APNsProviderToken.Issued, renew: Bool)?>(nil)
    private let degraded: Counter
    private let adoptions: Counter
    private let leaseLost: Counter

    init(local: APNsProviderToken, store: ProviderTokenStore, syncInterval: Duration, logger: Logger, metrics: MetricsRegistry) {
        self.local = local
        self.store = store
        self.syncInterval = syncInterval
        self.logger = logger
        degraded = metrics.counter("mailwake_relay_apns_token_degraded_total",
                                   help: "Provider tokens this instance signed on its own because PostgreSQL was unreachable when its " +
                                         "copy was missing or expiring.")
        adoptions = metrics.counter("mailwake_relay_apns_token_adoptions_total",
                                    help: "Shared provider tokens another instance signed, taken from the table.")
        leaseLost = metrics.counter("mailwake_relay_apns_token_lease_busy_total",
                                    help: "Renewals left to another instance that held the lease or had renewed already.")
    }

    /// Age (seconds) from which the copy in memory is not used without asking the table first.
    var expiringAge: Int64 { max(local.refreshAfter, Self.maximumAge - 60) }

    /// The token to send now: the copy in memory while it is fresh; a due one
    /// still serves while the loop renews it; a missing or expiring one waits
    /// for the table (or degraded signing).
    func token() async throws -> APNsProviderToken.Issued {
        if let issued = usable(now: local.now()) { return issued }
        await refresh()
        let now = local.now()
        guard let issued = local.cached,
              now - issued.issuedAt < Self.maximumAge else { throw APNsKeyError(message: "no provider token could be had") }
        return issued
    }

    /// The fast path: the copy in memory when it may be sent (nudging the loop when it is due).
    func usable(now: Int64) -> APNsProviderToken.Issued? {
        guard let issued = local.cached, issued.issuedAt <= now + 60 else { return nil }
        let age = now - issued.issuedAt
        if age < local.refreshAfter { return issued }
        if age < expiringAge {
            wakeup.signal()
            return issued
        }
        return nil
    }

    /// After APNs refused `refused` with `reason`: reads the table, renewing
    /// under the lease where the rules above allow. True when the copy in
    /// memory changed (the caller reconnects).
    func refused(_ refused: APNsProviderToken.Issued, reason: String) async -> Bool {
        let age = local.now() - refused.issuedAt
        let renew: Bool
        switch reason {
        case "TooManyProviderTokenUpdates": renew = false
        case "InvalidProviderToken": renew = true
        default: renew = age >= Self.minimumRenewAge
        }
        let first = handledRefusal.withLock { handled in
            defer { handled = (refused, renew) }
            return handled.map { $0.token != refused || $0.renew != renew } ?? true
        }
        guard first else {
            await refresh()
            return local.cached != refused
        }
        logger.notice("APNs refused the provider token", ["reason": .string(reason), "age_seconds": .int(Int(age)),
                                                          "renewing": .bool(renew)])
        await refresh(replacingRefused: renew ? refused : nil)
        return local.cached != refused
    }

    func run() async throws {
        while !Task.isCancelled {
            await refresh()
            // At most 50 reads a second however often requests nudge (a due copy nudges on every request until renewed).
            try? await Task.sleep(for: .milliseconds(20))
            await wakeup.wait(timeout: syncInterval)
        }
    }

    /// One read of the table (and a renewal when due), shared by concurrent callers of this instance.
    func refresh(replacingRefused refused: APNsProviderToken.Issued? = nil) async {
        let task = inFlight.withLock { slot -> Task<Void, Never> in
            if let running = slot, refused == nil { return running }
            let previous = slot
            let task = Task { [self] in
                if let previous { await previous.value }
                await sync(replacingRefused: refused)
            }
            slot = task
            return task
        }
        await task.value
        inFlight.withLock { if $0 == task { $0 = nil } }
    }

    private func sync(replacingRefused refused: APNsProviderToken.Issued?) async {
        let now = local.now()
        do {
            var row = try await store.read()
            if let pending = unpublished.withLock({ $0 }) {
                if row.issued.map({ $0.issuedAt < pending.issuedAt }) ?? true,
                   try await store.acquireLease(generation: row.generation, now: now),
                   try await store.publish(pending, replacing: row.generation) {
                    logger.notice("published the provider token signed while PostgreSQL was unreachable",
                                  ["issued_at": .int(Int(pending.issuedAt))])
                    row = ProviderTokenStore.Row(generation: row.generation + 1, issued: pending)
                }
                unpublished.withLock { $0 = nil }
            }
            if let issued = row.issued, issued != local.cached {
                local.adopt(issued)
                adoptions.increment()
            }
            let due = row.issued.map { now - $0.issuedAt >= local.refreshAfter || $0.issuedAt > now + 60 } ?? true
            let forced = refused != nil && row.issued == refused
            guard due || forced else { return }
            guard try await store.acquireLease(generation: row.generation, now: now) else {
                leaseLost.increment()
                try await adoptNewer(than: row.generation)
                return
            }
            let fresh: APNsProviderToken.Issued
            do {
                fresh = try local.signNew()
            } catch {
                try? await store.releaseLease()
                throw error
            }
            if try await store.publish(fresh, replacing: row.generation) {
                local.adopt(fresh)
                logger.info("renewed the shared provider token", ["issued_at": .int(Int(fresh.issuedAt)), "forced": .bool(forced)])
            } else {
                leaseLost.increment()
                try await adoptNewer(than: row.generation)
            }
        } catch {
            degradeIfNeeded(now: now, error: error)
        }
    }

    /// After losing the lease: waits (briefly: signing takes milliseconds) for the holder's token and adopts it.
    private func adoptNewer(than generation: Int64) async throws {
        for _ in 0..<40 {
            let again = try await store.read()
            if again.generation != generation, let issued = again.issued {
                if issued != local.cached {
                    local.adopt(issued)
                    adoptions.increment()
                }
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// PostgreSQL did not answer: keep the copy in memory unless it is missing or would expire.
    private func degradeIfNeeded(now: Int64, error: any Error) {
        if let held = local.cached, now - held.issuedAt < expiringAge, held.issuedAt <= now + 60 {
            logger.warning("cannot read the shared provider token; using the one in memory", ["error": .string("\(error)")])
            return
        }
        do {
            let own = try local.signNew()
            local.adopt(own)
            unpublished.withLock { $0 = own }
            degraded.increment()
            logger.warning("cannot read the shared provider token and the one in memory is missing or expiring: signed one of this " +
                           "instance's own (degraded)",
                           ["error": .string("\(error)")])
        } catch {
            logger.error("cannot sign an APNs provider token", ["error": .string("\(error)")])
        }
    }
}
