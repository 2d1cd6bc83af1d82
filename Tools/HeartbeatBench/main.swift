import Foundation

// mailwake-heartbeat-bench: N outposts, each paired with one device through
// the relay's pairing API, post signed heartbeats (PROTOCOL.md §14) to one
// `mailwake-relay serve` process: rounds of one heartbeat an outpost as fast
// as they are answered, then the real cadence (N a minute). Reports the
// relay's CPU, PostgreSQL's writes (commits, tuples, WAL bytes), request
// latency and the silence watch's pass over the full table. Prints JSON.

var options = HeartbeatBenchOptions()
options.parse(Array(CommandLine.arguments.dropFirst()))
let bench = try await HeartbeatBench.prepare(options)
let report: [String: Any]
do {
    report = try await bench.run()
} catch {
    await bench.tearDown()
    throw error
}
await bench.tearDown()
let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
FileHandle.standardOutput.write(data + Data("\n".utf8))
