import Foundation
import MailwakeBenchKit
import MailwakeCore
import MailwakeHTTPServer
import MailwakeHTTPTypes

// mailwake-http-bench: requests per second of the Mailwake HTTP server for a
// small JSON echo handler with keep-alive, next to nginx serving a static file
// of the same size on the same machine, both driven by the same `wrk` run
// (same threads, connections and duration). Prints one JSON document.
//
// usage: mailwake-http-bench [--seconds S] [--connections N] [--server-threads N]

struct Options {
    var seconds = 5
    var connections = 64
    var serverThreads = 2
    var wrkThreads = 2
}

var options = Options()
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--seconds": options.seconds = Int(args.popFirst() ?? "") ?? options.seconds
    case "--connections": options.connections = Int(args.popFirst() ?? "") ?? options.connections
    case "--server-threads": options.serverThreads = Int(args.popFirst() ?? "") ?? options.serverThreads
    case "--help":
        print("usage: mailwake-http-bench [--seconds S] [--connections N] [--server-threads N]\nJSON: Mailwake server (POST JSON echo) " +
              "and nginx (static file) requests/s under the same wrk load.")
        exit(0)
    default:
        FileHandle.standardError.write(Data("unknown argument \(a)\n".utf8))
        exit(2)
    }
}

let requestBody = #"{"pairing_id":"9aZxQ2k1hTz0bLrP4cVwYg","event_id":"01936f3e-7c1a-7d2b-9c4e-2f1a0b3c4d5e","n":1}"#
let work = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-http-bench-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

/// Runs wrk and returns requests/s and latency percentiles (ms).
func wrk(url: String, script: String?, options: Options) throws -> [String: Any] {
    var arguments = ["-t", String(options.wrkThreads), "-c", String(options.connections), "-d", "\(options.seconds)s", "--latency"]
    if let script { arguments += ["-s", script] }
    arguments.append(url)
    let output = try BenchSystem.output(of: "/usr/bin/wrk", arguments).text
    func number(after label: String) -> Double? {
        guard let line = output.split(separator: "\n")
            .first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }) else { return nil }
        return Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(label.split(separator: " ").count).first ?? "")
    }
    func latency(_ p: String) -> Double? {
        guard let line = output.split(separator: "\n")
            .first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(p + "%") }) else { return nil }
        let value = String(line.split(separator: " ", omittingEmptySubsequences: true).last ?? "")
        if value.hasSuffix("us") { return Double(value.dropLast(2)).map { $0 / 1000 } }
        if value.hasSuffix("ms") { return Double(value.dropLast(2)) }
        if value.hasSuffix("s") { return Double(value.dropLast(1)).map { $0 * 1000 } }
        return nil
    }
    let errors = output.contains("Non-2xx") || output.contains("Socket errors")
    return ["requests_per_second": number(after: "Requests/sec:") as Any, "p50_ms": latency("50") as Any,
            "p99_ms": latency("99") as Any, "errors_reported": errors]
}

// MARK: Mailwake server

var router = Router()
router.post("/echo") { request, _ in
    struct Payload: Codable { var pairing_id: String; var event_id: String; var n: Int }
    return try .json(try request.decodeJSON(Payload.self))
}
let staticReply = Array(#"{"event_id":"01936f3e-7c1a-7d2b-9c4e-2f1a0b3c4d5e","n":1,"pairing_id":"9aZxQ2k1hTz0bLrP4cVwYg"}"#.utf8)
router.get("/static") { _, _ in .json(bytes: staticReply) }
var configuration = HTTPServer.Configuration()
configuration.port = try BenchSystem.freePort()
configuration.allowPlainHTTP = true
configuration.threads = options.serverThreads
configuration.perIPConnectionLimit = 0
configuration.metricsPrefix = "mailwake_bench"
let server = HTTPServer(configuration: configuration, router: router, logger: Logger(service: "bench", level: .warning),
                        metrics: MetricsRegistry())
try server.start()
let script = work.appendingPathComponent("post.lua")
try "wrk.method = \"POST\"\nwrk.body = '\(requestBody)'\nwrk.headers[\"Content-Type\"] = \"application/json\"\n".write(to: script,
    atomically: true, encoding: .utf8)
let mailwake = try wrk(url: "http://127.0.0.1:\(configuration.port)/echo", script: script.path, options: options)
let mailwakeStatic = try wrk(url: "http://127.0.0.1:\(configuration.port)/static", script: nil, options: options)
await server.shutdown()

// MARK: nginx, same machine, same load

let nginxPort = try BenchSystem.freePort()
let root = work.appendingPathComponent("www")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
let staticBody = #"{"event_id":"01936f3e-7c1a-7d2b-9c4e-2f1a0b3c4d5e","n":1,"pairing_id":"9aZxQ2k1hTz0bLrP4cVwYg"}"#
try staticBody.write(to: root.appendingPathComponent("echo.json"), atomically: true, encoding: .utf8)
let conf = work.appendingPathComponent("nginx.conf")
try """
worker_processes \(options.serverThreads);
daemon off;
pid \(work.path)/nginx.pid;
error_log \(work.path)/error.log warn;
\(getuid() == 0 ? "user root;" : "")
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path \(work.path)/body;
  proxy_temp_path \(work.path)/proxy;
  fastcgi_temp_path \(work.path)/fastcgi;
  uwsgi_temp_path \(work.path)/uwsgi;
  scgi_temp_path \(work.path)/scgi;
  server {
    listen 127.0.0.1:\(nginxPort);
    root \(root.path);
    location / { default_type application/json; }
  }
}
""".write(to: conf, atomically: true, encoding: .utf8)
var nginxResult: [String: Any] = ["available": false]
if FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") {
    let nginx = Process()
    nginx.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
    nginx.arguments = ["-c", conf.path, "-e", work.appendingPathComponent("error.log").path]
    nginx.standardOutput = FileHandle.nullDevice
    nginx.standardError = FileHandle.nullDevice
    try nginx.run()
    try await Task.sleep(nanoseconds: 500_000_000)
    nginxResult = try wrk(url: "http://127.0.0.1:\(nginxPort)/echo.json", script: nil, options: options)
    nginxResult["available"] = true
    nginx.terminate()
    nginx.waitUntilExit()
}

var report: [String: Any] = [
    "benchmark": "mailwake-http-bench",
    "load": ["tool": "wrk", "threads": options.wrkThreads, "connections": options.connections, "seconds": options.seconds,
             "keep_alive": true],
    "server_threads": options.serverThreads,
    "mailwake": mailwake.merging(["handler": "POST /echo: strict JSON decode + encode, " +
                                             "\(requestBody.utf8.count)-byte body"]) { a, _ in a },
    "mailwake_static": mailwakeStatic.merging(["handler": "GET /static: fixed \(staticReply.count)-byte JSON, no decoding"]) { a, _ in a },
    "nginx": nginxResult.merging(["handler": "GET static \(staticBody.utf8.count)-byte file"]) { a, _ in a },
]
if let m = mailwake["requests_per_second"] as? Double, let n = nginxResult["requests_per_second"] as? Double, n > 0 {
    report["ratio_mailwake_over_nginx"] = (m / n * 100).rounded() / 100
    if let st = mailwakeStatic["requests_per_second"] as? Double { report["ratio_mailwake_static_ove" +
                                                                          "r_nginx"] = (st / n * 100).rounded() / 100 }
}
let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
FileHandle.standardOutput.write(data + Data("\n".utf8))
