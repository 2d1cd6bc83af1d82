import Foundation
import MailwakeBenchKit
import MailwakePostgres

/// What one phase of the bench cost besides the relay's CPU: accounts
/// look-ups (accounts' and the relay's metrics), PostgreSQL's commits, row
/// writes, WAL, CPU and table growth, and per-statement work when the server
/// preloads pg_stat_statements (`--footprint`).
final class PhaseFootprint: Sendable {
    /// The readings at a phase's start.
    struct Start: Sendable {
        var postgres: PostgresFootprint
        var accounts: PrometheusText
        var relay: PrometheusText
        var at: ContinuousClock.Instant
    }

    static let retention = """
                           relay RETENTION 7 d, CATCHUP_RETENTION 72 h, accounts DIAGNOSTICS_RETENTION_DAYS 7 (the defaults): nothing \
                           is pruned during a run, 
                           """
        + "so the growth is what each envelope costs while it is retained (finished rows keep their dead versions until vacuum)"

    let bench: RelayBench
    let relayDatabase: PostgresClient
    let databases: [PostgresFootprint.Database]
    let statements: StatementStats?

    init(bench: RelayBench) async throws {
        self.bench = bench
        relayDatabase = PostgresClient(configuration: try .init(url: bench.relayDatabaseURL), logger: .disabled)
        let names = bench.stack.databases
        databases = [.init(label: "relay", name: names[1], client: relayDatabase),
                     .init(label: "accounts", name: names[0], client: bench.stack.accountsPool)]
        statements = await StatementStats.enable(bench.stack.admin)
    }

    func close() async { await relayDatabase.close() }

    func begin() async throws -> Start {
        try await statements?.reset()
        return Start(postgres: try await PostgresFootprint.read(admin: bench.stack.admin, databases: databases),
                     accounts: PrometheusText(bench.stack.accounts.metrics.render()), relay: try await relayMetrics(), at: .now)
    }

    /// Call when the phase's work is done: waits `settle` seconds, reads again, reports.
    func end(_ start: Start, envelopes: Int) async throws -> [String: Any] {
        let seconds = (ContinuousClock.now - start.at).seconds
        try await Task.sleep(for: .seconds(bench.options.settle))
        let postgres = try await PostgresFootprint.read(admin: bench.stack.admin, databases: databases)
        let accounts = PrometheusText(bench.stack.accounts.metrics.render()), relay = try await relayMetrics()
        let n = Double(max(1, envelopes))
        let requests = "mailwake_accounts_http_requests_total"
        let calls = accounts.sum(requests,
                                 by: "route").merging(start.accounts.sum(requests, by: "route")) { $0 - $1 }.filter { $0.value > 0 }
        let authorizationCalls = calls["/internal/v1/authorizations"] ?? 0
        let devices = accounts.sum("mailwake_accounts_authorization_devices_total") - start.accounts.sum("""
            mailwake_accounts_authorizatio\
            n_devices_total
            """)
        let outpostCalls = calls.filter { $0.key.hasPrefix("/internal/v1/outposts") }.values.reduce(0, +)
        let cache = relay.sum("mailwake_relay_accounts_cache_total",
                              by: "result").merging(start.relay.sum("mailwake_relay_accounts_cache_total", by: "result")) { $0 - $1 }
        var report = postgres.since(start.postgres, envelopes: envelopes, seconds: seconds)
        report["seconds"] = round1(seconds)
        report["settle_seconds"] = bench.options.settle
        report["retention"] = Self.retention
        report["accounts"] = [
            "calls_by_route": calls.mapValues { Int($0) }, "authorization_calls": Int(authorizationCalls),
            "devices_looked_up": Int(devices),
            "authorization_calls_per_envelope": (authorizationCalls / n * 1000).rounded() / 1000,
            "devices_looked_up_per_envelope": (devices / n * 1000).rounded() / 1000,
            "devices_per_authorization_call": round1(devices / max(1, authorizationCalls)),
            "outpost_calls_per_envelope": (outpostCalls / n * 1000).rounded() / 1000,
            "relay_cache": cache.mapValues { Int($0) },
            "how": """
                   accounts' mailwake_accounts_http_requests_total by route and mailwake_accounts_authorization_devices_total, the \
                   relay's mailwake_relay_accounts_cache_total; differences over the phase
                   """,
        ] as [String: Any]
        if let statements {
            report["statements"] = try await statements.read(databases: databases.map(\.name), envelopes: envelopes)
        }
        return report
    }

    func relayMetrics() async throws -> PrometheusText { try await bench.relayMetrics() }
}
