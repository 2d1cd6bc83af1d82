import Foundation
import MailwakeBenchKit
import MailwakeCore
import MailwakeHTTPClient

/// The bursts: for each protocol, each queue size `repeats` times, interleaved.
final class BacklogBench: BenchRun {
    let options: ClientBenchOptions
    let server: NginxServer

    private init(options: ClientBenchOptions, server: NginxServer) {
        self.options = options
        self.server = server
    }

    static func prepare(_ options: ClientBenchOptions) async throws -> BacklogBench {
        BacklogBench(options: options, server: try await NginxServer.start())
    }

    func run() async throws -> [String: Any] {
        var report: [String: Any] = [
            "benchmark": "mailwake-http-client-bench",
            "setup": """
                     this client and nginx (1 worker, `return 200` with a \(NginxServer.reply.utf8.count)-byte JSON body) on loopback, \
                     TLS (P-256); 
                     """
                + "each burst starts N POSTs (\(Burst.body.count)-byte body) at once from N unstructured tasks and waits for all",
            "machine_cores": ProcessInfo.processInfo.activeProcessorCount,
            "queued": options.queued, "repeats": options.repeats,
            "cpu_note": "cpu_us_per_request: this process (client thread, callers' tasks, the pool), getrusage; "
                + """
                  owner_thread_cpu_us_per_request: the client's mw-http thread alone (/proc/self/task/*/schedstat); \
                  owner_thread_runqueue_wait_ms: how long 
                  """
                + """
                  that thread was ready to run but waited for a core (other processes' load). Shared 2-core machine: figures are \
                  noisy; compare sizes within one run
                  """,
        ]
        for proto in options.protocols {
            report[proto] = try await measure(proto)
        }
        return report
    }

    private func measure(_ proto: String) async throws -> [String: Any] {
        var c = HTTPClient.Configuration()
        c.name = proto
        c.caFile = server.certificate
        c.totalTimeout = .seconds(120)
        let url: String
        if proto != "h1" {
            c.httpVersion = .http2
            c.maxConnectionsPerHost = options.connections
            url = "https://127.0.0.1:\(server.h2Port)/3/device/bench"
        } else {
            c.httpVersion = .http1_1
            c.maxConnectionsPerHost = options.h1Connections
            url = "https://127.0.0.1:\(server.h1Port)/3/device/bench"
        }
        let client: any HTTPRequestExecuting, thread: String
        if proto == "h2-nghttp2" {
            client = try HTTP2Client(origin: "https://127.0.0.1:\(server.h2Port)", configuration: c)
            thread = "mw-h2-" + proto
        } else {
            client = try HTTPClient(configuration: c)
            thread = "mw-http-" + proto
        }
        defer { client.shutdown() }
        try await waitUntilUp(client, url: url)
        // Warm-up: TLS handshakes for every connection the burst sizes will use.
        let warm = await Burst.run(client, url: url, count: max(1000, c.maxConnectionsPerHost * 4), thread: thread)
        var runs: [Int: [[String: Any]]] = [:]
        for _ in 0..<options.repeats {
            for n in options.queued {
                runs[n, default: []].append(await Burst.run(client, url: url, count: n, thread: thread).summary)
            }
        }
        var bySize: [String: Any] = [:]
        var medianCPU: [Int: Double] = [:]
        for n in options.queued {
            let list = runs[n] ?? []
            func median(_ key: String) -> Double {
                let values = list.compactMap { $0[key] as? Double }.sorted()
                return values.isEmpty ? 0 : values[values.count / 2]
            }
            medianCPU[n] = median("cpu_us_per_request")
            bySize[String(n)] = [
                "cpu_us_per_request": median("cpu_us_per_request"),
                "owner_thread_cpu_us_per_request": median("owner_thread_cpu_us_per_request"),
                "requests_per_second": median("requests_per_second"),
                "owner_thread_runqueue_wait_ms": median("owner_thread_runqueue_wait_ms"),
                "runs": list,
            ] as [String: Any]
        }
        var result: [String: Any] = [
            "http_version": proto != "h1" ? "HTTP/2 over TLS (ALPN), max_concurrent_streams \(c.maxConcurrentStreams)" : """
                HTTP/1.1 over \
                TLS, keep-alive
                """,
            "max_connections_per_host": c.maxConnectionsPerHost,
            "warm_up": warm.summary,
            "by_queued": bySize,
        ]
        if let small = options.queued.min(), let large = options.queued.max(), let a = medianCPU[small], let b = medianCPU[large], a > 0 {
            result["cpu_per_request_ratio_largest_over_smallest"] = (b / a * 100).rounded() / 100
        }
        if proto != "h1", let large = options.queued.max() {
            result["nghttp2_reference"] = try await reference(url: url, requests: large, ours: medianCPU[large] ?? 0)
        }
        return result
    }

    /// h2load's cost for the same requests over as many connections, `repeats` times, next to this client's.
    private func reference(url: String, requests: Int, ours: Double) async throws -> [String: Any] {
        var runs: [NghttpReference] = []
        for _ in 0..<options.repeats {
            runs.append(try await NghttpReference.run(url: url, requests: requests, connections: options.connections, work: server.work))
        }
        let cpu = runs.map(\.cpuMicrosPerRequest).sorted()[runs.count / 2]
        return [
            "cpu_us_per_request": round1(cpu),
            "this_client_over_reference": cpu > 0 ? round1(ours / cpu) : 0,
            "note": "this client's process CPU per request at the same number queued, over h2load's whole process",
            "runs": runs.map(\.summary),
        ]
    }

    private func waitUntilUp(_ client: any HTTPRequestExecuting, url: String) async throws {
        for _ in 0..<100 {
            if (try? await client.execute(.init(url: url), logger: nil))?.status == .ok { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError("nginx did not answer on \(url): see \(server.work.path)/error.log")
    }

    func tearDown() async { await server.stop() }
}
