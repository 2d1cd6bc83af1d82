import Foundation
import MailwakeBenchKit
import MailwakeCore

/// The same HTTP/2 load from `h2load` (nghttp2's own client on OpenSSL, one
/// thread): what a client written directly on nghttp2 costs per request,
/// next to ours on libcurl. The figure that tells whether replacing libcurl
/// for APNs is worth it (issue 20, docs/relay.md).
struct NghttpReference {
    static let executable = "/usr/bin/h2load"

    var requests: Int
    var succeeded = 0
    var cpuSeconds = 0.0
    var wallSeconds = 0.0

    /// Sends `requests` POSTs of `Burst.body` over `connections` connections with up to 100 streams each.
    static func run(url: String, requests: Int, connections: Int, work: URL) async throws -> NghttpReference {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError("\(executable) is missing (Debian: nghttp2-client)")
        }
        let bodyPath = work.appendingPathComponent("h2load-body.json").path
        try Data(Burst.body).write(to: URL(fileURLWithPath: bodyPath))
        let arguments = ["-n", String(requests), "-c", String(connections), "-m", "100", "-t", "1", "-d", bodyPath,
                         "-H", "content-type: application/json", "-H", "apns-topic: net.mailwake.app", url]
        return try await OwnThread.run { () throws -> NghttpReference in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = arguments
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            // getrusage(RUSAGE_CHILDREN) grows when a child is waited for: nginx keeps running, so the difference is h2load's.
            let cpu0 = Burst.processCPUSeconds(RUSAGE_CHILDREN)
            let start = ContinuousClock.now
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            var reference = NghttpReference(requests: requests)
            reference.wallSeconds = (ContinuousClock.now - start).seconds
            reference.cpuSeconds = Burst.processCPUSeconds(RUSAGE_CHILDREN) - cpu0
            reference.succeeded = succeeded(in: text)
            guard p.terminationStatus == 0, reference.succeeded > 0 else {
                throw BenchError("h2load failed (exit \(p.terminationStatus)): \(text.suffix(400))")
            }
            return reference
        }
    }

    /// The `succeeded` count of h2load's `requests:` line (`requests: 10 total, 10 started, 10 done, 10 succeeded, …`).
    static func succeeded(in report: String) -> Int {
        for line in report.split(separator: "\n") where line.hasPrefix("requests:") {
            for field in line.dropFirst("requests:".count).split(separator: ",") {
                let words = field.split(separator: " ")
                if words.count == 2, words[1] == "succeeded" { return Int(words[0]) ?? 0 }
            }
        }
        return 0
    }

    /// h2load's CPU per request that succeeded.
    var cpuMicrosPerRequest: Double { cpuSeconds * 1e6 / Double(max(succeeded, 1)) }

    var summary: [String: Any] {
        [
            "client": "h2load (nghttp2 1.52 on OpenSSL 3, one thread)", "requests": requests, "succeeded": succeeded,
            "cpu_us_per_request": round1(cpuMicrosPerRequest),
            "requests_per_second": (Double(succeeded) / wallSeconds).rounded(),
        ]
    }
}
