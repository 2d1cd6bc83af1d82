import Foundation
import MailwakeBenchKit
import MailwakeHTTPClient
import Synchronization

/// One burst: `count` requests started at once, each from an unstructured task
/// (no task group, so no child-task bookkeeping of the caller is measured).
struct Burst {
    var count: Int
    var completed = 0
    var failures: [String: Int] = [:]
    var latenciesMS: [Double] = []
    var wallSeconds = 0.0
    var cpuSeconds = 0.0
    var ownerThreadSeconds = 0.0
    /// Time the owner thread was runnable but waited for a core (other processes' load).
    var ownerThreadWaitSeconds = 0.0

    /// An APNs-sized payload.
    static let body = Array((#"{"aps":{"alert":{"title":"New mail","body":"bench"},"mutable-content":1},"# +
                             #""mw":"\#(String(repeating: "x", count: 120))"}"#).utf8)

    static func run(_ client: any HTTPRequestExecuting, url: String, count: Int, thread: String) async -> Burst {
        let tally = Tally(count: count)
        let request = HTTPClient.Request(method: .post, url: url,
                                         headers: ["content-type": "application/json", "apns-topic": "net.mailwake.app"], body: body)
        let cpu0 = processCPUSeconds(), owner0 = threadSchedule(named: thread)
        let start = ContinuousClock.now
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            tally.onDone(done)
            for _ in 0..<count {
                Task {
                    let t0 = ContinuousClock.now
                    var failure: String?
                    do {
                        let r = try await client.execute(request, logger: nil)
                        if r.status != .ok { failure = "status_\(r.status.code)" }
                    } catch {
                        failure = (error as? HTTPClientError)?.code.rawValue ?? String(describing: type(of: error))
                    }
                    tally.record(failure: failure, ms: (ContinuousClock.now - t0).seconds * 1000)
                }
            }
        }
        var burst = Burst(count: count)
        burst.wallSeconds = (ContinuousClock.now - start).seconds
        burst.cpuSeconds = processCPUSeconds() - cpu0
        let owner1 = threadSchedule(named: thread)
        burst.ownerThreadSeconds = owner1.running - owner0.running
        burst.ownerThreadWaitSeconds = owner1.waiting - owner0.waiting
        (burst.completed, burst.failures, burst.latenciesMS) = tally.results
        return burst
    }

    var summary: [String: Any] {
        [
            "queued": count, "completed": completed, "failed": failures,
            "wall_ms": round1(wallSeconds * 1000),
            "requests_per_second": (Double(completed) / wallSeconds).rounded(),
            "cpu_us_per_request": round1(cpuSeconds * 1e6 / Double(max(completed, 1))),
            "owner_thread_cpu_us_per_request": round1(ownerThreadSeconds * 1e6 / Double(max(completed, 1))),
            "owner_thread_runqueue_wait_ms": round1(ownerThreadWaitSeconds * 1000),
            "latency_ms": Percentiles(latenciesMS).summary,
        ]
    }

    /// User plus system CPU of this process (`RUSAGE_SELF`), or of its children that ended and were waited for.
    static func processCPUSeconds(_ who: __rusage_who = RUSAGE_SELF) -> Double {
        var usage = rusage()
        getrusage(who.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Seconds this process's thread named `name` has run, and has waited
    /// runnable for a core (schedstat's first two fields); zeros if none.
    static func threadSchedule(named name: String) -> (running: Double, waiting: Double) {
        let prefix = String(name.prefix(15))
        guard let tids = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return (0, 0) }
        for tid in tids {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8),
                  comm.trimmingCharacters(in: .whitespacesAndNewlines) == prefix,
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/schedstat", encoding: .utf8) else { continue }
            let fields = stat.split(separator: " ").compactMap { Double($0) }
            guard fields.count >= 2 else { continue }
            return (fields[0] / 1e9, fields[1] / 1e9)
        }
        return (0, 0)
    }
}
