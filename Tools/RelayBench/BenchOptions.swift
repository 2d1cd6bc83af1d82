import Foundation
import MailwakeBenchKit

/// Command-line options of `mailwake-relay-bench`.
struct BenchOptions {
    var postgresURL = ProcessInfo.processInfo.environment["MAILWAKE_TEST_POSTGRES_URL"] ?? ""
    var outposts = 20
    var devicesPerOutpost = 5
    /// Fixed-rate phase: envelopes a second and for how long.
    var rate = 2000
    var seconds = 10.0
    /// Saturation phase: envelopes submitted as fast as `concurrency` connections allow.
    var saturation = 40000
    var concurrency = 64
    /// Fixed-rate phase: the simulated devices post receipts (PROTOCOL §13); `--no-receipts` for a baseline.
    var receipts = true
    /// Connections that pair the devices at the start (through the relay's pairing API).
    var pairConcurrency = 32
    /// Per phase: accounts look-ups, PostgreSQL commits, WAL, CPU and table growth, read `settle` seconds after the phase.
    var footprint = false
    var settle = 11.0
    /// The relay's `APNS_CLIENT`: `nghttp2` (its default) or `libcurl`, to compare the two in one session.
    var apnsClient = "nghttp2"
    /// The relay's `HTTP_ENGINE` for its public listener: `epoll` (its default) or `libmicrohttpd`.
    var httpEngine = "epoll"
    /// Envelopes sent before the phases (connections, prepared statements, caches; with 32 an outpost or more, the
    /// busy keys' verify tables too).
    var warmUp = 500
    /// The relay's `VERIFY_TABLES`: outpost keys that may hold a precomputed verify table (0 turns them off).
    var verifyTables = 64
    /// Both phases' load client: `lean` (`LeanLoad`, one epoll thread: an open loop at the fixed rate, a closed loop at
    /// saturation) or `libcurl` (the HTTP client, a task a request); the lean one leaves more of the shared machine to the
    /// relay and PostgreSQL.
    var loadClient = "lean"
    /// How the fixed-rate phase spreads its envelopes: `poisson` (independent senders, the default) or `even`.
    var arrivals = ArrivalSchedule.Pattern.poisson
    /// `--relay-cpus`: the relay alone on these CPUs, everything else (this process, the simulator, a local PostgreSQL
    /// server) on the rest, as when the relay has a machine of its own; nil shares every CPU among all of them.
    var relayCPUs: String?

    mutating func parse(_ arguments: [String]) {
        var args = arguments[...]
        while let a = args.popFirst() {
            switch a {
            case "--url": postgresURL = args.popFirst() ?? ""
            case "--outposts": outposts = Int(args.popFirst() ?? "") ?? outposts
            case "--devices": devicesPerOutpost = Int(args.popFirst() ?? "") ?? devicesPerOutpost
            case "--rate": rate = Int(args.popFirst() ?? "") ?? rate
            case "--seconds": seconds = Double(args.popFirst() ?? "") ?? seconds
            case "--saturation": saturation = Int(args.popFirst() ?? "") ?? saturation
            case "--concurrency": concurrency = Int(args.popFirst() ?? "") ?? concurrency
            case "--no-receipts": receipts = false
            case "--pair-concurrency": pairConcurrency = max(1, Int(args.popFirst() ?? "") ?? pairConcurrency)
            case "--footprint": footprint = true
            case "--settle": settle = max(0, Double(args.popFirst() ?? "") ?? settle)
            case "--apns-client":
                apnsClient = args.popFirst() ?? ""
                guard apnsClient == "nghttp2" || apnsClient == "libcurl" else {
                    FileHandle.standardError.write(Data("--apns-client takes nghttp2 or libcurl\n".utf8))
                    exit(2)
                }
            case "--http-engine":
                httpEngine = args.popFirst() ?? ""
                guard httpEngine == "epoll" || httpEngine == "libmicrohttpd" else {
                    FileHandle.standardError.write(Data("--http-engine takes epoll or libmicrohttpd\n".utf8))
                    exit(2)
                }
            case "--verify-tables":
                guard let n = Int(args.popFirst() ?? ""), n >= 0 else {
                    FileHandle.standardError.write(Data("--verify-tables takes a count (0 turns the tables off)\n".utf8))
                    exit(2)
                }
                verifyTables = n
            case "--load-client":
                loadClient = args.popFirst() ?? ""
                guard loadClient == "lean" || loadClient == "libcurl" else {
                    FileHandle.standardError.write(Data("--load-client takes lean or libcurl\n".utf8))
                    exit(2)
                }
            case "--arrivals":
                guard let pattern = ArrivalSchedule.Pattern(rawValue: args.popFirst() ?? "") else {
                    FileHandle.standardError.write(Data("--arrivals takes poisson or even\n".utf8))
                    exit(2)
                }
                arrivals = pattern
            case "--relay-cpus": relayCPUs = args.popFirst() ?? ""
            case "--warm-up":
                guard let n = Int(args.popFirst() ?? ""), n >= 1 else {
                    FileHandle.standardError.write(Data("--warm-up takes a number of envelopes (1 or more)\n".utf8))
                    exit(2)
                }
                warmUp = n
            case "--help":
                print("""
                    usage: mailwake-relay-bench [--url POSTGRES_URL] [--outposts N] [--devices M] [--rate R] [--seconds S] [--saturation \
                    N] [--concurrency C] [--no-receipts]
                                                [--pair-concurrency C] [--footprint] [--settle S] [--apns-client nghttp2|libcurl]
                                                [--http-engine epoll|libmicrohttpd] [--verify-tables N]
                                                [--warm-up N] [--load-client lean|libcurl] [--arrivals poisson|even]
                                                [--relay-cpus LIST]
                    --footprint adds to each phase what it cost: accounts look-ups per envelope, PostgreSQL commits, WAL, CPU,
                    table growth (and per-statement work when the server preloads pg_stat_statements), read --settle seconds (11)
                    after the phase, when PostgreSQL's idle backends have flushed their counters.
                    --apns-client sets the relay's APNS_CLIENT (nghttp2, its default, or libcurl).
                    --http-engine sets the relay's HTTP_ENGINE (epoll, its default, or libmicrohttpd).
                    --warm-up sends N envelopes (500) before the phases; 32 an outpost or more lets the relay build its verify
                    tables before the fixed-rate phase, as a relay that has run a while has them.
                    --verify-tables sets the relay's VERIFY_TABLES (64, its default; 0 checks every signature with the key alone).
                    --load-client picks both phases' client: lean (the default: HTTP/1.1 keep-alive over TLS on one epoll
                    thread, a few µs a request; at the fixed rate an open loop on --concurrency connections) or libcurl (the
                    HTTP client, a task a request, about 40 µs a request).
                    --arrivals spreads the fixed-rate phase's envelopes as independent arrivals at the rate (poisson, the
                    default: many outposts that do not coordinate; a fixed seed, so runs offer the same load) or one every
                    1/rate seconds exactly (even: no two arrive together, the hardest case for batching).
                    --relay-cpus runs the relay alone on LIST (taskset's list: 0, 0-1, 0,2) and everything else on the other
                    CPUs: this process (load clients, accounts), the simulator and, when it runs on this machine and may be moved,
                    PostgreSQL (put back at the end, unless the bench is killed), as when the relay has a machine of its own.
                    Without it all share every CPU.
                    URL defaults to $MAILWAKE_TEST_POSTGRES_URL (a superuser: the tool creates scratch databases).
                    mailwake-relay and mailwake-apns-simulator are taken from the directory of this binary.
                    """)
                exit(0)
            default:
                FileHandle.standardError.write(Data("unknown argument \(a)\n".utf8))
                exit(2)
            }
        }
        guard !postgresURL.isEmpty else {
            FileHandle.standardError.write(Data("mailwake-relay-bench: give --url or MAILWAKE_TEST_POSTGRES_URL\n".utf8))
            exit(2)
        }
    }
}
