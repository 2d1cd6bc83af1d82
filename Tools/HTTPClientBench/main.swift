import MailwakeBenchKit

// mailwake-http-client-bench: the HTTP client under a backlog. Queues N
// requests at once (100, 1,000, 10,000 by default) against nginx on loopback
// (HTTP/2 over TLS, and HTTP/1.1 over TLS) and reports, per N, the client's
// CPU µs per completed request and completions per second: flat figures
// across N mean the per-request cost does not grow with the backlog.
// Prints JSON.
//
// usage: mailwake-http-client-bench [--queued 100,1000,10000] [--repeat 3] [--protocols h2,h1]
//                                   [--connections 8] [--h1-connections 64]

let options = ClientBenchOptions(CommandLine.arguments.dropFirst())
await runBench("mailwake-http-client-bench") { try await BacklogBench.prepare(options) }
