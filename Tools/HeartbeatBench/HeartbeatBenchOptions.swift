import Foundation
import MailwakeBenchKit

/// Command-line options of `mailwake-heartbeat-bench`.
struct HeartbeatBenchOptions {
    static let usage = """
        usage: mailwake-heartbeat-bench [--url POSTGRES_URL] [--outposts N] [--pair-concurrency C] [--rounds R] [--concurrency C]
                                        [--interval S] [--seconds S] [--silence-passes N] [--settle S]
        Pairs N outposts (10,000) through the relay, then posts signed heartbeats (PROTOCOL.md §14): R rounds (3) of one an
        outpost as fast as C connections (32) go, then N/interval a second (the real cadence, interval 60 s) for --seconds (30).
        PostgreSQL's counters are read --settle seconds (11) after each phase; less undercounts the relay's writes.
        URL defaults to $MAILWAKE_TEST_POSTGRES_URL (a superuser: the tool creates scratch databases).
        mailwake-relay and mailwake-apns-simulator are taken from the directory of this binary.
        """

    let postgresURL: String
    /// Simulated outposts, each with one active pairing, and the connections that pair them at the start.
    let outposts: Int, pairConcurrency: Int
    /// Saturated rounds (every outpost once, as fast as `concurrency` connections are answered).
    let rounds: Int, concurrency: Int
    /// The real cadence: one heartbeat an outpost every `interval` seconds, kept for `seconds`.
    let interval: Double, seconds: Double
    /// Timed silence-watch passes over the full table.
    let silencePasses: Int
    /// Seconds before reading PostgreSQL's counters after a phase (its idle backends flush them within 10 s).
    let settle: Double

    init(_ arguments: some Sequence<String>) {
        let a = BenchArguments(arguments, tool: "mailwake-heartbeat-bench", names: [
            "--url", "--outposts", "--pair-concurrency", "--rounds", "--concurrency", "--interval", "--seconds", "--silence-passes",
            "--settle",
        ], usage: Self.usage)
        postgresURL = a.string("--url", ProcessInfo.processInfo.environment["MAILWAKE_TEST_POSTGRES_URL"] ?? "")
        (outposts, pairConcurrency) = (a.count("--outposts", 10_000), a.count("--pair-concurrency", 32))
        (rounds, concurrency) = (a.count("--rounds", 3), a.count("--concurrency", 32))
        (interval, seconds) = (a.number("--interval", 60), a.number("--seconds", 30))
        silencePasses = a.count("--silence-passes", 20)
        settle = a.number("--settle", 11, minimum: 0)
    }
}
