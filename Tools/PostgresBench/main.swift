import Foundation
import MailwakeCore
import MailwakePostgres

// mailwake-postgres-bench: the pool's simple-query rate. N concurrent tasks
// run `SELECT $1::int` round trips over a pool of M connections for a fixed
// time; prints one JSON document (rates and latency percentiles, never asserted).
//
// usage: mailwake-postgres-bench [--url URL] [--seconds S] [--pools 1,4,8]
//                                [--concurrency 1,8,32] [--modes prepared,unprepared]
//        mailwake-postgres-bench --encode [--batch 64]
// URL defaults to $MAILWAKE_POSTGRES_URL, then $MAILWAKE_TEST_POSTGRES_URL.
// --encode needs no server: the CPU cost of binding one batch of array
// parameters shaped like the relay's group commit (EncodeBench.swift).

struct Options {
    var url = ProcessInfo.processInfo.environment["MAILWAKE_POSTGRES_URL"]
        ?? ProcessInfo.processInfo.environment["MAILWAKE_TEST_POSTGRES_URL"]
    var seconds = 2.0
    var pools = [1, 4, 8]
    var concurrency = [1, 8, 32]
    var modes = ["prepared"]
    var encode = false
    var batch = 64
}

func usage(_ code: Int32) -> Never {
    let text = """
        usage: mailwake-postgres-bench [--url URL] [--seconds S] [--pools 1,4,8] [--concurrency 1,8,32] [--modes prepared,unprepared]
               mailwake-postgres-bench --encode [--batch 64]
        Measures SELECT $1::int round trips per second through the PostgresClient pool for every pool size and
        concurrency given, and prints JSON. URL defaults to $MAILWAKE_POSTGRES_URL, then $MAILWAKE_TEST_POSTGRES_URL.
        --encode measures, without a server, the CPU time of binding one batch of --batch rows as the relay's group
        commit does (16 array parameters), and prints JSON.

        """
    FileHandle.standardError.write(Data(text.utf8))
    exit(code)
}

func intList(_ s: String?) -> [Int] {
    let values = (s ?? "").split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
    if values.isEmpty { usage(2) }
    return values
}

var options = Options()
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--url": options.url = args.popFirst()
    case "--seconds":
        guard let s = Double(args.popFirst() ?? ""), s > 0 else { usage(2) }
        options.seconds = s
    case "--pools": options.pools = intList(args.popFirst())
    case "--concurrency": options.concurrency = intList(args.popFirst())
    case "--modes":
        options.modes = (args.popFirst() ?? "").split(separator: ",").map(String.init)
        if options.modes.isEmpty || !options.modes.allSatisfy({ $0 == "prepared" || $0 == "unprepared" }) { usage(2) }
    case "--encode": options.encode = true
    case "--batch":
        guard let n = Int(args.popFirst() ?? ""), n > 0 else { usage(2) }
        options.batch = n
    case "--help", "-h": usage(0)
    default:
        FileHandle.standardError.write(Data("unknown argument \(a)\n".utf8))
        usage(2)
    }
}
if options.encode {
    let json = try JSONSerialization.data(withJSONObject: EncodeBench(batch: options.batch).run(), options: [.prettyPrinted, .sortedKeys])
    FileHandle.standardOutput.write(json + Data("\n".utf8))
    exit(0)
}
guard let url = options.url else {
    FileHandle.standardError.write(Data("mailwake-postgres-bench: no server: pass --url or set MAILWAKE_POSTGRES_URL\n".utf8))
    exit(1)
}

struct Run: Sendable {
    var mode: String
    var pool: Int
    var concurrency: Int
    var queries: Int
    var errors: Int
    var elapsed: Double
    var latenciesMicros: [Double]
}

/// One task's loop: round trips until the deadline; latencies in microseconds.
func worker(_ client: PostgresClient, seed: Int, until deadline: ContinuousClock.Instant) async -> (count: Int, errors: Int,
    latencies: [Double]) {
    var count = 0, errors = 0
    var latencies: [Double] = []
    latencies.reserveCapacity(100_000)
    var i = Int32(seed)
    let clock = ContinuousClock()
    while clock.now < deadline {
        let start = clock.now
        do {
            let v = try await client.query("SELECT \(i)::int").scalar(Int32.self)
            if v != i { errors += 1 }
        } catch {
            errors += 1
        }
        let d = clock.now - start
        latencies.append(Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12)
        count += 1
        i &+= 1
    }
    return (count, errors, latencies)
}

func measure(mode: String, pool: Int, concurrency: Int, seconds: Double) async throws -> Run {
    var config = try PostgresClient.Configuration(url: url)
    config.poolSize = pool
    config.applicationName = "mailwake-postgres-bench"
    config.statementCacheCapacity = mode == "prepared" ? 128 : 0
    config.checkoutTimeout = .seconds(60)
    let client = PostgresClient(configuration: config, logger: Logger(service: "mailwake-postgres-bench", level: .warning))
    // Open every connection first, so connecting is not measured.
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<pool { group.addTask { _ = try await client.query("SELECT pg_sleep(0.05)") } }
        try await group.waitForAll()
    }
    let clock = ContinuousClock()
    let start = clock.now
    let deadline = start + .milliseconds(Int(seconds * 1000))
    let results = await withTaskGroup(of: (count: Int, errors: Int, latencies: [Double]).self) { group in
        for t in 0..<concurrency {
            group.addTask { await worker(client, seed: t * 1_000_000, until: deadline) }
        }
        var all: [(count: Int, errors: Int, latencies: [Double])] = []
        for await r in group { all.append(r) }
        return all
    }
    let elapsed = clock.now - start
    await client.close()
    return Run(mode: mode, pool: pool, concurrency: concurrency,
               queries: results.reduce(0) { $0 + $1.count }, errors: results.reduce(0) { $0 + $1.errors },
               elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
               latenciesMicros: results.flatMap(\.latencies))
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let index = min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)
    return sorted[max(0, index)]
}

func rounded(_ v: Double, _ places: Double = 1) -> Double { (v * pow(10, places)).rounded() / pow(10, places) }

let configuration = try PostgresClient.Configuration(url: url)
let probe = PostgresClient(configuration: configuration, logger: Logger(service: "mailwake-postgres-bench", level: .warning))
let serverVersion = try await probe.query("SHOW server_version").scalar(String.self) ?? "?"
await probe.close()

var runs: [[String: Any]] = []
for mode in options.modes {
    for pool in options.pools {
        for concurrency in options.concurrency {
            let r = try await measure(mode: mode, pool: pool, concurrency: concurrency, seconds: options.seconds)
            let sorted = r.latenciesMicros.sorted()
            runs.append([
                "mode": r.mode,
                "pool_size": r.pool,
                "concurrency": r.concurrency,
                "queries": r.queries,
                "errors": r.errors,
                "seconds": rounded(r.elapsed, 3),
                "queries_per_second": rounded(Double(r.queries) / r.elapsed),
                "latency_us": ["p50": rounded(percentile(sorted, 50)), "p90": rounded(percentile(sorted, 90)),
                               "p99": rounded(percentile(sorted, 99)), "max": rounded(sorted.last ?? 0)],
            ])
        }
    }
}

let document: [String: Any] = [
    "benchmark": "postgres-pool",
    "query": "SELECT $1::int",
    "server": ["version": serverVersion, "endpoint": configuration.unixSocketDirectory != nil ? "unix" : "tcp"],
    "cpus": ProcessInfo.processInfo.activeProcessorCount,
    "seconds_per_run": options.seconds,
    "runs": runs,
]
let json = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
FileHandle.standardOutput.write(json)
FileHandle.standardOutput.write(Data("\n".utf8))
