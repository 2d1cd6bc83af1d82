import AccountsService
import Foundation
import MailwakeBenchKit
import MailwakeCore
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakePostgres
import MailwakeProtocol

// mailwake-accounts-bench: authorization look-ups (GET /internal/v1/devices/{id}/authorization)
// per second and latency through the internal API over TLS, against a real
// PostgreSQL: a cold pass right after start (fresh pool, nothing prepared)
// and a warm pass; then the batched look-up the relay uses (POST
// /internal/v1/authorizations, `--batch` devices a call). Prints JSON.
//
// usage: mailwake-accounts-bench [--url POSTGRES_URL] [--devices N] [--requests N] [--concurrency N] [--batch N]

var postgresURL = ProcessInfo.processInfo.environment["MAILWAKE_TEST_POSTGRES_URL"] ?? ""
var deviceCount = 2000
var requestCount = 20000
var concurrency = 32
var batchSize = 64
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--url": postgresURL = args.popFirst() ?? ""
    case "--devices": deviceCount = Int(args.popFirst() ?? "") ?? deviceCount
    case "--requests": requestCount = Int(args.popFirst() ?? "") ?? requestCount
    case "--concurrency": concurrency = Int(args.popFirst() ?? "") ?? concurrency
    case "--batch": batchSize = max(1, min(500, Int(args.popFirst() ?? "") ?? batchSize))
    case "--help":
        print("""
              usage: mailwake-accounts-bench [--url POSTGRES_URL] [--devices N] [--requests N] [--concurrency N] [--batch N]\nURL \
              defaults to $MAILWAKE_TEST_POSTGRES_URL (a superuser: the tool creates a scratch database).
              """)
        exit(0)
    default:
        FileHandle.standardError.write(Data("unknown argument \(a)\n".utf8))
        exit(2)
    }
}
guard !postgresURL.isEmpty else {
    FileHandle.standardError.write(Data("mailwake-accounts-bench: give --url or MAILWAKE_TEST_POSTGRES_URL\n".utf8))
    exit(2)
}

// A throwaway certificate for the TLS listener.
let work = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-accounts-bench-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }
let cert = work.appendingPathComponent("cert.pem").path, key = work.appendingPathComponent("key.pem").path
try BenchSystem.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert,
           "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])

// A scratch database with `deviceCount` registered devices and some purchases.
let database = "accounts_bench_\(getpid())"
let admin = PostgresClient(configuration: try .init(url: postgresURL), logger: .disabled)
try await admin.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(database)"))
var components = URLComponents(string: postgresURL)!
components.path = "/" + database
let benchURL = components.string!

let serviceToken = "bench-service-token-0123456789abcdef"
let port = try BenchSystem.freePort()
let configuration = AccountsConfiguration(listenHost: "127.0.0.1", listenPort: port, adminHost: "127.0.0.1", adminPort: 0,
                                          publicOrigin: "https://accounts.bench", databaseURL: benchURL, tlsCertificate: cert, tlsKey: key,
                                          serviceTokens: [serviceToken], pushProductIDs: ["net.mailwake.push.monthly"])
let pool = PostgresClient(configuration: try .init(url: benchURL), logger: .disabled)
let now = WallClock.seconds()
let app = AccountsApp(configuration: configuration, database: pool, logger: Logger(service: "accounts", level: .warning),
                      metrics: MetricsRegistry(), clock: { now })
try await app.migrate()
var deviceIDs: [String] = []
for i in 0..<deviceCount {
    let signing = try P256.Signing.PrivateKey(), agreement = try P256.KeyAgreement.PrivateKey()
    let id = KeyIdentity.id(of: signing.publicKey)
    deviceIDs.append(id)
    let token = String(repeating: String(format: "%02x", i % 256), count: 32)
    try await pool.execute("""
        INSERT INTO devices (device_id, signing_key, agreement_key, apns_token, apns_environment, apns_token_updated_at, bundle_id,
            app_version, created_at, updated_at)
        VALUES (\(id), \(signing.publicKey.x963Representation), \(agreement.publicKey.x963Representation), \(token), 'production',
            \(now), 'net.mailwake.app', '1.0', \(now), \(now))
        """)
    if i % 2 == 0 {
        try await pool.execute("""
            INSERT INTO app_store_transactions (original_transaction_id, last_transaction_id, product_id, environment, purchased_at,
                expires_at, signed_at_ms, updated_at)
            VALUES (\(String(1_000_000 + i)), \(String(1_000_000 + i)), 'net.mailwake.push.monthly', 'Production', \(now),
                \(now + 86400 * 30), \(now * 1000), \(now))
            """)
        try await pool.execute("""
                               INSERT INTO purchase_links (original_transaction_id, device_id, linked_at) VALUES \
                               (\(String(1_000_000 + i)), \(id), \(now))
                               """)
    }
}
await pool.close()

/// Runs `count` requests from `concurrency` workers; returns the sorted
/// latencies (ms), the elapsed seconds and a percentile function.
func timed(count: Int, concurrency: Int, _ request: @escaping @Sendable (Int) async throws -> Void) async throws
    -> (latencies: [Double], seconds: Double, percentile: (Double) -> Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for w in 0..<concurrency {
            group.addTask {
                var mine: [Double] = []
                var i = w
                while i < count {
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    try await request(i)
                    mine.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                    i += concurrency
                }
                return mine
            }
        }
        var all: [Double] = []
        for try await part in group { all += part }
        return all.sorted()
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return (latencies, (seconds * 1000).rounded() / 1000,
            { p in (latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] * 1000).rounded() / 1000 })
}

/// Runs `count` single look-ups with `concurrency` workers; returns rate and latency percentiles (ms).
func pass(_ client: HTTPClient, count: Int, concurrency: Int, ids deviceIDs: [String], port: UInt16,
          token serviceToken: String) async throws -> [String: Any] {
    let t = try await timed(count: count, concurrency: concurrency) { i in
        let id = deviceIDs[(i * 7919) % deviceIDs.count]
        let r = try await client.execute(.init(url: "https://localhost:\(port)/internal/v1/devices/\(id)/authorization",
                                               headers: ["Authorization": "Bearer \(serviceToken)"]))
        guard r.status.code == 200 else { throw NSError(domain: "status \(r.status.code)", code: 1) }
    }
    return ["requests": t.latencies.count, "seconds": t.seconds, "per_second": (Double(t.latencies.count) / t.seconds).rounded(),
            "p50_ms": t.percentile(0.50), "p99_ms": t.percentile(0.99), "max_ms": t.percentile(1.0)]
}

/// Look-ups of `batch` devices a call (`calls` calls, `concurrency` workers);
/// returns devices a second and the latency of one call (ms).
func batchPass(_ client: HTTPClient, calls: Int, batch: Int, concurrency: Int, ids deviceIDs: [String], port: UInt16,
               token serviceToken: String) async throws -> [String: Any] {
    let t = try await timed(count: calls, concurrency: concurrency) { i in
        let chosen = (0..<batch).map { deviceIDs[((i * batch + $0) * 7919) % deviceIDs.count] }
        let body = try JSONSerialization.data(withJSONObject: ["device_ids": chosen])
        let r = try await client.execute(.init(method: .post, url: "https://localhost:\(port)/internal/v1/authorizations",
                                               headers: ["Authorization": "Bearer \(serviceToken)", "Content-Type": "application/json"],
                                               body: Array(body)))
        guard r.status.code == 200 else { throw NSError(domain: "status \(r.status.code)", code: 1) }
    }
    return ["calls": t.latencies.count, "devices_per_call": batch, "seconds": t.seconds,
            "devices_per_second": (Double(t.latencies.count * batch) / t.seconds).rounded(),
            "call_p50_ms": t.percentile(0.50), "call_p99_ms": t.percentile(0.99), "call_max_ms": t.percentile(1.0)]
}

let fresh = PostgresClient(configuration: try .init(url: benchURL), logger: .disabled)
let served = AccountsApp(configuration: configuration, database: fresh, logger: Logger(service: "accounts", level: .warning),
                         metrics: MetricsRegistry(), clock: { now })
let server = served.servers()[0]
try server.start()
var clientConfig = HTTPClient.Configuration()
clientConfig.caFile = cert
clientConfig.httpVersion = .http1_1
clientConfig.maxConnectionsPerHost = concurrency
let client = try HTTPClient(configuration: clientConfig)
let ids = deviceIDs, listenPort = port, workers = concurrency
let cold = try await pass(client, count: min(requestCount, deviceCount), concurrency: workers, ids: ids, port: listenPort,
                          token: serviceToken)
let warm = try await pass(client, count: requestCount, concurrency: workers, ids: ids, port: listenPort, token: serviceToken)
// The relay keeps at most two batch calls in flight per instance.
let batched = try await batchPass(client, calls: max(1, requestCount / batchSize), batch: batchSize, concurrency: 2, ids: ids,
                                  port: listenPort,
                                  token: serviceToken)
client.shutdown()
await server.shutdown()
await fresh.close()
try await admin.execute(PostgresQuery(unsafeSQL: "DROP DATABASE \(database)"))
await admin.close()

let report: [String: Any] = [
    "benchmark": "mailwake-accounts-bench",
    "endpoint": "GET /internal/v1/devices/{id}/authorization over TLS (HTTP/1.1 keep-alive), service token, entitlement computed per call",
    "devices": deviceCount, "concurrency": concurrency, "server_threads": 2, "postgres_pool": 8,
    "cold": cold, "warm": warm, "batched": batched,
    "target": "≥ 5,000/s, p99 < 10 ms (DESIGN.md §6)",
]
let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
FileHandle.standardOutput.write(data + Data("\n".utf8))
