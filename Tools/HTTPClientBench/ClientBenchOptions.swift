import MailwakeBenchKit

/// Command-line options of `mailwake-http-client-bench`.
struct ClientBenchOptions {
    /// Requests queued at once, one burst each.
    var queued: [Int]
    /// Bursts per size (the report gives each and their median).
    var repeats: Int
    /// `h2` (HTTP/2 over TLS, multiplexed), `h2-nghttp2` (the same through
    /// `HTTP2Client`, on nghttp2) and/or `h1` (HTTP/1.1 over TLS, keep-alive).
    var protocols: [String]
    /// `maxConnectionsPerHost` of the HTTP/2 client (the default client's 8).
    var connections: Int
    /// `maxConnectionsPerHost` of the HTTP/1.1 client (the relay bench's 64).
    var h1Connections: Int

    static let usage = """
        usage: mailwake-http-client-bench [--queued 100,1000,10000] [--repeat 3] [--protocols h2,h2-nghttp2,h1] [--connections 8] \
        [--h1-connections 64]
        Queues each number of requests at once against nginx on loopback (TLS) and prints, per number, the client's
        CPU µs per completed request and completions per second, as JSON. Needs /usr/sbin/nginx and /usr/bin/openssl.
        """

    init(_ arguments: some Sequence<String>) {
        let args = BenchArguments(arguments, tool: "mailwake-http-client-bench",
                                  names: ["--queued", "--repeat", "--protocols", "--connections", "--h1-connections"], usage: Self.usage)
        let sizes = args.string("--queued", "100,1000,10000").split(separator: ",").map { Int($0) ?? 0 }
        guard !sizes.isEmpty,
              sizes.allSatisfy({ $0 >= 1 }) else { args.fail("--queued takes whole numbers of at least 1, comma-separated") }
        queued = sizes
        repeats = args.count("--repeat", 3)
        protocols = args.string("--protocols", "h2,h2-nghttp2,h1").split(separator: ",").map(String.init)
        guard protocols.allSatisfy({ ["h2", "h2-nghttp2", "h1"].contains($0) }) else {
            args.fail("--protocols takes h2, h2-nghttp2 and/or h1")
        }
        connections = args.count("--connections", 8)
        h1Connections = args.count("--h1-connections", 64)
    }
}
