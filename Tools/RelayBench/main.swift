import MailwakeBenchKit

// mailwake-relay-bench: N outposts × M paired devices submit signed, sealed
// envelopes over HTTPS to one `mailwake-relay serve` process, which verifies,
// queues them durably in PostgreSQL and sends them to the APNs simulator over
// HTTP/2. Reports accepted/s, sent/s and submit→APNs latency at a fixed rate
// and at saturation, and the relay's CPU per envelope against one ECDSA
// verify measured in the same run. Prints JSON.
//
// usage: mailwake-relay-bench [--url POSTGRES_URL] [--outposts N] [--devices M] [--rate R] [--seconds S]
//                             [--saturation N] [--concurrency C]

var options = BenchOptions()
options.parse(Array(CommandLine.arguments.dropFirst()))
await runBench("mailwake-relay-bench") { try await RelayBench.prepare(options) }
