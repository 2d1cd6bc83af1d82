import Foundation
import MailwakeIMAP
import MailwakeProtocol
import OutpostService
import StackSupport
import TestSupport
import Testing

/// The mail-watching benchmark (DESIGN.md §6), run by `Tools/MailWatchBench/run`
/// (MAILWAKE_BENCH_MAIL=1): the real `mailwake-outpost serve` process against a
/// real Dovecot and the relay stack. Prints one JSON object; asserts nothing
/// about time.
@Suite(.serialized, .awaitedCleanup, .enabled(if: ProcessInfo.processInfo.environment["MAILWAKE_BENCH_MAIL"] != nil))
struct MailWatchBenchmark {
    static var binary: String { ProcessInfo.processInfo.environment["MAILWAKE_OUTPOST_BINARY"] ?? OutpostCommandLineTests.executable }

    static func serve(_ dir: String) throws -> TestServerProcess {
        try TestServerProcess(executable: "/usr/bin/env",
                              arguments: ["MAILWAKE_OUTPOST_LOG_LEVEL=warning", "MAILWAKE_OUTPOST_RECONNECT_BACKOFF=1", binary, "serve",
                                          "--data-dir", dir],
                              logName: "outpost-bench")
    }

    static func rssKiB(_ pid: pid_t) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    static func waitUntilWatching(_ store: OutpostStore, count: Int, process: TestServerProcess, timeout: Double = 120) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while try await store.folderStates().filter({ $0.watchState == .idle }).count < count {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw TestHarnessError("not every folder reached IDLE: \(process.logText().suffix(3000))")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    @Test func appendToAPNsLatencyAndMemoryPerMailbox() async throws {
        let messages = Int(ProcessInfo.processInfo.environment["MAILWAKE_BENCH_MESSAGES"] ?? "200") ?? 200
        let mailboxes = Int(ProcessInfo.processInfo.environment["MAILWAKE_BENCH_MAILBOXES"] ?? "200") ?? 200
        let h = try await MailWatchHarness.start()

        // 1. APPEND → APNs: one watched mailbox, the real daemon, messages one at a time.
        let serve = try Self.serve(h.outpost.directory.path)
        defer { serve.stop() }
        try await Self.waitUntilWatching(h.outpost.store, count: 1, process: serve)
        let rssOne = Self.rssKiB(serve.pid)
        let endpoint = IMAPEndpoint(host: "localhost", port: h.dovecot.imapsPort, security: .implicitTLS, caFile: h.dovecot.caFile)
        let appender = try await runOffPool {
            let client = try IMAPClient(endpoint: endpoint)
            try client.authenticate(.password(user: MailWatchHarness.user, password: MailWatchHarness.password))
            return UncheckedClient(client)
        }
        var latencies: [Double] = []
        for i in 1...messages {
            let message = MailWatchHarness.message(subject: "bench \(i)", body: "Your code is \(100_000 + i).")
            // From the moment APPEND is sent: Dovecot may tell the IDLE watcher before it answers the APPEND.
            let appendedAt = try await runOffPool {
                let sent = Int64(Date().timeIntervalSince1970 * 1000)
                try appender.client.append(message, to: "INBOX")
                return sent
            }
            // The alert push of message i (a code also starts a Live Activity: a second push).
            var alerts = try await h.stack.simulator.deliveries().filter { $0.pushType == "alert" }
            let deadline = ContinuousClock.now + .seconds(30)
            while alerts.count < i, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(2))
                alerts = try await h.stack.simulator.deliveries().filter { $0.pushType == "alert" }
            }
            let delivery = try #require(alerts.count == i ? alerts.last : nil)
            latencies.append(Double(delivery.receivedAtMS - appendedAt))
            try await Task.sleep(for: .milliseconds(20))
        }
        appender.client.logout()
        serve.stop()

        // 2. Memory: the daemon watching `mailboxes` Dovecot accounts (one IDLE connection each).
        for n in 1...mailboxes {
            try h.dovecot.addUser("user\(n)", password: "pw\(n)")
            let ep = IMAPEndpoint(host: "localhost", port: h.dovecot.imapsPort, security: .implicitTLS, caFile: h.dovecot.caFile)
            try await h.outpost.store.addMailbox(MailboxRecord(label: "mb\(n)", endpoint: ep, username: "user\(n)",
                                                               authentication: .password), secret: "pw\(n)")
        }
        let many = try Self.serve(h.outpost.directory.path)
        defer { many.stop() }
        let started = Date()
        try await Self.waitUntilWatching(h.outpost.store, count: mailboxes + 1, process: many, timeout: 300)
        let connectSeconds = Date().timeIntervalSince(started)
        try await Task.sleep(for: .seconds(5))
        let rssMany = Self.rssKiB(many.pid)
        many.stop()

        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] }
        let json = """
            {"benchmark":"mail-watch","binary":"\(Self.binary)","messages":\(messages),\
            "append_to_apns_ms":{"p50":\(percentile(0.5)),"p90":\(percentile(0.9)),"p99":\(percentile(0.99)),\
            "max":\(sorted.last ?? 0),"min":\(sorted.first ?? 0)},\
            "mailboxes":\(mailboxes + 1),"rss_kib_one_mailbox":\(rssOne),"rss_kib_all_mailboxes":\(rssMany),\
            "rss_kib_per_mailbox":\(Double(rssMany - rssOne) / Double(mailboxes)),"seconds_to_watch_all":\(connectSeconds)}
            """
        print(json)
        if let out = ProcessInfo.processInfo.environment["MAILWAKE_BENCH_OUT"] { try json.write(toFile: out, atomically: true,
                                                                                                encoding: .utf8) }
        #expect(latencies.count == messages)
    }
}

/// An IMAP client handed between the test's off-pool threads, one at a time.
// @unchecked Sendable is safe because every use is one `runOffPool` body at a time, each awaited before the next.
final class UncheckedClient: @unchecked Sendable {
    let client: IMAPClient
    init(_ client: IMAPClient) { self.client = client }
}
