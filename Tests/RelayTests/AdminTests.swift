import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol
import StackSupport
import TestSupport
import Testing

@Suite("Relay: operator visibility (admin listener)", .serialized, .awaitedCleanup)
struct AdminTests {
    typealias Paired = IntakeTests.Paired

    /// One sent and one failed delivery, for the pages to show.
    static func withTraffic() async throws -> (Paired, sent: String, failed: String) {
        let p = try await Paired.start()
        let sent = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        _ = try await p.stack.submit(sent)
        _ = try await DeliveryTests.finalStatus(p, sent.context.eventID)
        try await p.stack.simulator.setBehaviour(token: p.device.apnsToken, status: 410, reason: "Unregistered", times: 1)
        let failed = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        _ = try await p.stack.submit(failed)
        _ = try await DeliveryTests.finalStatus(p, failed.context.eventID)
        return (p, sent.context.eventID, failed.context.eventID)
    }

    @Test func readinessChecksPostgresOnlyAndAccountsReachabilityIsAMetricAndALogLine() async throws {
        let p = try await Paired.start { $0.accounts.checkInterval = .milliseconds(200) }
        let admin = p.stack.relay.adminURL
        #expect(try await p.stack.send(.get, "/healthz", to: admin).status == .ok)
        let ready = try await p.stack.send(.get, "/readyz", to: admin)
        #expect(ready.status == .ok)
        #expect(try ready.decode(RelayResponses.Readiness.self).checks == ["postgres": "ok"])
        try await Self.waitForMetric("mailwake_relay_accounts_reachable 1", p)

        // Accounts goes away: the relay stays ready (a load balancer keeps it), the gauge drops,
        // failures are counted, and one line says so.
        await p.stack.accounts.stop()
        try await Self.waitForMetric("mailwake_relay_accounts_reachable 0", p)
        let stillReady = try await p.stack.send(.get, "/readyz", to: admin)
        #expect(stillReady.status == .ok)
        #expect(try stillReady.decode(RelayResponses.Readiness.self).checks == ["postgres": "ok"])
        let text = try await p.stack.send(.get, "/metrics", to: admin).text
        let failures = text.split(separator: "\n").first { $0.hasPrefix("mailwake_relay_accounts_check_failures_total ") }
            .flatMap { Int($0.dropFirst("mailwake_relay_accounts_check_failures_total ".count)) } ?? 0
        #expect(failures >= 1)
        // Several failed checks, one line: on the change only.
        // At least two more: the counter moves on every 200 ms, and a slow scrape can miss the exact value.
        try await Self.waitForCounter("mailwake_relay_accounts_check_failures_total", atLeast: failures + 2, p)
        // One line per change: a loaded start may have seen accounts unreachable at its first check (then one
        // "reachable again"), so the lines alternate and the last says unreachable.
        let lines = p.stack.relay.logs.all.map(\.message).filter { $0 == "accounts unreachable" || $0 == "accounts reachable again" }
        #expect(lines.last == "accounts unreachable")
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0 != $1 }, "\(lines)")
        #expect(lines.filter { $0 == "accounts unreachable" }.count <= 2)
    }

    /// Scrapes `/metrics` until the unlabelled counter `name` is at least `value`.
    static func waitForCounter(_ name: String, atLeast value: Int, _ p: Paired, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let text = try await p.stack.send(.get, "/metrics", to: p.stack.relay.adminURL).text
            let current = text.split(separator: "\n").first { $0.hasPrefix("\(name) ") }.flatMap { Int($0.dropFirst(name.count + 1)) } ?? 0
            if current >= value { return }
            guard ContinuousClock.now < deadline else { throw TestHarnessError("\(name) is \(current), not yet \(value)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Scrapes `/metrics` until it holds `line`.
    static func waitForMetric(_ line: String, _ p: Paired, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !(try await p.stack.send(.get, "/metrics",
                                       to: p.stack.relay.adminURL).text).split(separator: "\n").contains(Substring(line)) {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("no metric line \(line)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test func metricsCountAcceptanceAPNsOutcomesAndLatency() async throws {
        let (p, _, _) = try await Self.withTraffic()
        let needles = [
            "mailwake_relay_envelopes_accepted_total 2",
            #"mailwake_relay_apns_requests_total{outcome="sent",reason="",status="200"} 1"#,
            #"mailwake_relay_apns_requests_total{outcome="failed",reason="Unregistered",status="410"} 1"#,
            #"mailwake_relay_deliveries_total{status="sent"} 1"#,
            #"mailwake_relay_deliveries_total{status="failed"} 1"#,
            "mailwake_relay_accept_to_sent_seconds_count 1",
            "mailwake_relay_apns_token_refreshes_total 1",
            "mailwake_relay_queue_depth",
            #"mailwake_relay_accounts_cache_total{result="hit"}"#,
        ]
        // The worker counts an outcome just after storing it, so a reader of
        // the status may be a moment ahead of the counters.
        var text = ""
        let deadline = ContinuousClock.now + .seconds(10)
        repeat {
            text = try await p.stack.send(.get, "/metrics", to: p.stack.relay.adminURL).text
            if needles.allSatisfy(text.contains) { break }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        for needle in needles { #expect(text.contains(needle), "missing \(needle)") }
    }

    @Test func theDeliveriesAPINeedsTheOperatorTokenAndFiltersByStatus() async throws {
        let (p, sent, failed) = try await Self.withTraffic()
        let admin = p.stack.relay.adminURL
        expectProblem(try await p.stack.send(.get, "/admin/v1/deliveries", to: admin), .unauthorized, "token-required")
        expectProblem(try await p.stack.send(.get, "/admin/v1/deliveries", to: admin, headers: ["Authorization": "Bearer wrong"]),
                      .unauthorized, "token-invalid")
        let auth: HTTPHeaders = ["Authorization": "Bearer \(RelayInstance.operatorToken)"]
        let list = { (query: String) async throws -> [RelayResponses.DeliveryList.Item] in
            try await p.stack.send(.get, "/admin/v1/deliveries" + query, to: admin, headers: auth)
                .decode(RelayResponses.DeliveryList.self).deliveries
        }
        #expect(Set(try await list("").map(\.eventID)) == [sent, failed])
        let onlyFailed = try await list("?status=failed")
        #expect(onlyFailed.count == 1)
        #expect(onlyFailed.first?.apnsReason == "Unregistered")
        #expect(onlyFailed.first?.payload == nil, "the operator never sees a payload")
        let future = Int64(Date().timeIntervalSince1970) + 60
        #expect(try await list("?since=\(future)").isEmpty)
        expectProblem(try await p.stack.send(.get, "/admin/v1/deliveries?status=lost", to: admin, headers: auth), .badRequest,
                      "bad-status")
    }

    @Test func anOperatorPageWhoseQueryOutlastsTheStatementTimeoutAnswers503() async throws {
        let p = try await Paired.start { $0.databaseURL = $0.databaseURL.appendingQueryItem("statement_timeout", "1000") }
        let database = PostgresClient(configuration: try .init(url: p.stack.relayDatabaseURL), logger: .disabled)
        let auth: HTTPHeaders = ["Authorization": "Bearer \(RelayInstance.operatorToken)"]
        let lock = try await HeldLock.take("LOCK TABLE deliveries IN ACCESS EXCLUSIVE MODE", on: database)
        let (list, page) = try await lock.whileHeld {
            (try await p.stack.send(.get, "/admin/v1/deliveries", to: p.stack.relay.adminURL, headers: auth),
             try await p.stack.send(.get, "/admin", to: p.stack.relay.adminURL, headers: auth))
        }
        await database.close()
        expectProblem(list, .serviceUnavailable, "database-unavailable")
        expectProblem(page, .serviceUnavailable, "database-unavailable")
        // Once the lock is gone the list answers again (the statements queued behind the lock go first, which on a loaded
        // machine may take the next query past the test's 1 s timeout).
        var status = HTTPStatus.serviceUnavailable
        for _ in 0..<200 where status != .ok {
            status = try await p.stack.send(.get, "/admin/v1/deliveries", to: p.stack.relay.adminURL, headers: auth).status
            if status != .ok { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(status == .ok, "the operator routes answer again once the database does")
    }

    @Test func theStatusPageShowsQueueThroughputAndFailuresWithoutSecrets() async throws {
        let (p, _, failed) = try await Self.withTraffic()
        let admin = p.stack.relay.adminURL
        let denied = try await p.stack.send(.get, "/admin", to: admin)
        #expect(denied.status == .unauthorized)
        #expect(denied.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)
        let basic = Data("operator:\(RelayInstance.operatorToken)".utf8).base64EncodedString()
        let page = try await p.stack.send(.get, "/admin", to: admin, headers: ["Authorization": "Basic \(basic)"])
        #expect(page.status == .ok)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(page.headers["Content-Security-Policy"]?.contains("default-src 'none'") == true)
        let html = page.text
        #expect(html.contains("Mailwake relay"))
        #expect(html.contains(failed))
        #expect(html.contains("Unregistered"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("http://") && !html.contains("https://"), "no external assets")
        #expect(!html.contains(p.device.apnsToken))
    }

    @Test func theStatusPageRendersInHeadlessChromium() async throws {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let browser = try #require(chromium, "chromium is missing: run scripts/bootstrap")
        let (p, _, failed) = try await Self.withTraffic()
        let port = p.stack.relay.adminURL.split(separator: ":").last!
        let shot = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-relay-admin-\(UUID().uuidString).png")
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let url = "http://operator:\(RelayInstance.operatorToken)@127.0.0.1:\(port)/admin"
        let dom = try await runOffPool {
            try ChildProcess.run("/usr/bin/timeout",
                                 ["120", browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                  "--no-first-run",
                                           "--user-data-dir=\(profile.path)", "--dump-dom", url], directory: nil)
        }
        #expect(dom.contains("<h1>Mailwake relay</h1>"), "the browser rendered the status page")
        #expect(dom.contains(failed))
        _ = try await runOffPool {
            try ChildProcess.run("/usr/bin/timeout",
                                 ["120", browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                  "--no-first-run",
                                           "--user-data-dir=\(profile.path)", "--window-size=1280,900", "--screenshot=\(shot.path)", url],
                                           directory: nil)
        }
        let png = try Data(contentsOf: shot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG screenshot")
        let keep = ProcessInfo.processInfo.environment["MAILWAKE_SCREENSHOT_DIR"]
        if let keep { try? FileManager.default.copyItem(at: shot,
                                                        to: URL(fileURLWithPath: keep).appendingPathComponent("relay-admin.png")) }
        try? FileManager.default.removeItem(at: shot)
    }
}

@Suite("Relay: what the logs may say", .serialized, .awaitedCleanup)
struct RelayLogTests {
    @Test func logsNameIdsButNeverTokensKeysCiphertextOrCredentials() async throws {
        let p = try await IntakeTests.Paired.start()
        let envelope = try p.outpost.envelope(for: p.device, pairingID: p.pairingID, content: SimulatedOutpost.sampleContent())
        _ = try await p.stack.submit(envelope)
        _ = try await DeliveryTests.finalStatus(p, envelope.context.eventID)
        _ = try await DeliveryTests.deliverOne(p, apnsAnswers: 410, "Unregistered")
        _ = try await p.stack.send(.get, "/admin", to: p.stack.relay.adminURL,
                                   headers: ["Authorization": "Bearer \(RelayInstance.operatorToken)"])
        await p.stack.relay.stop()
        let lines = p.stack.relay.logs.lines
        #expect(lines.contains { $0.contains(p.pairingID) }, "pairing ids are logged (they are not secret)")
        let secrets = [
            p.device.apnsToken, p.device.pushToStartToken, Base64URL.encode(envelope.ciphertext), Base64URL.encode(envelope.signature),
            Base64URL.encode(p.device.agreement.publicKey.x963Representation), AccountsInstance.serviceToken, RelayInstance.operatorToken,
            "eyJhbGciOiJFUzI1NiIs", "Your sign-in code", "482913",
        ]
        for line in lines {
            for secret in secrets { #expect(!line.contains(secret), "a log line carries something secret: \(line.prefix(200))") }
        }
    }
}
