import Foundation

/// Command-line options of `mailwake-heartbeat-bench`.
struct HeartbeatBenchOptions {
    var postgresURL = ProcessInfo.processInfo.environment["MAILWAKE_TEST_POSTGRES_URL"] ?? ""
    /// Simulated outposts, each with one active pairing.
    var outposts = 10_000
    /// Connections that pair the outposts at the start.
    var pairConcurrency = 32
    /// Saturated rounds (every outpost once, as fast as `concurrency` connections are answered).
    var rounds = 3
    var concurrency = 32
    /// The real cadence: one heartbeat an outpost every `interval` seconds, kept for `seconds`.
    var interval = 60.0
    var seconds = 30.0
    /// Timed silence-watch passes over the full table.
    var silencePasses = 20

    mutating func parse(_ arguments: [String]) {
        var args = arguments[...]
        func number(_ flag: String) -> Double {
            guard let text = args.popFirst(), let value = Double(text), value > 0 else { Self.fail("\(flag) takes a positive number") }
            return value
        }
        while let a = args.popFirst() {
            switch a {
            case "--url": postgresURL = args.popFirst() ?? ""
            case "--outposts": outposts = Int(number(a))
            case "--pair-concurrency": pairConcurrency = Int(number(a))
            case "--rounds": rounds = Int(number(a))
            case "--concurrency": concurrency = Int(number(a))
            case "--interval": interval = number(a)
            case "--seconds": seconds = number(a)
            case "--silence-passes": silencePasses = Int(number(a))
            case "--help":
                print("""
                    usage: mailwake-heartbeat-bench [--url POSTGRES_URL] [--outposts N] [--pair-concurrency C] [--rounds R] [--concurrency C]
                                                    [--interval S] [--seconds S] [--silence-passes N]
                    Pairs N outposts through the relay, then posts signed heartbeats (PROTOCOL.md §14): R rounds of one a outpost as fast
                    as C connections go, then N/S a second (the real cadence, S = 60) for --seconds. Prints JSON.
                    URL defaults to $MAILWAKE_TEST_POSTGRES_URL (a superuser: the tool creates scratch databases).
                    mailwake-relay and mailwake-apns-simulator are taken from the directory of this binary.
                    """)
                exit(0)
            default:
                Self.fail("unknown argument \(a)")
            }
        }
        guard !postgresURL.isEmpty else { Self.fail("give --url or MAILWAKE_TEST_POSTGRES_URL") }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("mailwake-heartbeat-bench: \(message)\n".utf8))
        exit(2)
    }
}
