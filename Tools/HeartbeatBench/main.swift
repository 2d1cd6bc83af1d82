import MailwakeBenchKit

// mailwake-heartbeat-bench: N outposts, each paired with one device through
// the relay's pairing API, post signed heartbeats (PROTOCOL.md §14) to one
// `mailwake-relay serve` process: rounds of one heartbeat an outpost as fast
// as they are answered, then the real cadence (N a minute). Reports the
// relay's CPU, PostgreSQL's writes (commits, tuples, WAL bytes), request
// latency and the silence watch's pass over the full table. Prints JSON.

await runBench("mailwake-heartbeat-bench") { try await HeartbeatBench.prepare(HeartbeatBenchOptions(CommandLine.arguments.dropFirst())) }
