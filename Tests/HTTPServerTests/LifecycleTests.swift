import Foundation
import MailwakeCore
import MailwakeHTTPServer
import MailwakeHTTPTypes
import TestSupport
import Testing

@Suite("HTTP server: TLS, admin listener and graceful shutdown", .awaitedCleanup)
struct LifecycleTests {
    @Test func servesHTTPSWithTheConfiguredCertificate() async throws {
        let certs = try await TestCertificates.generate()
        defer { certs.remove() }
        let f = try ServerFixture.start(LimitsTests.router(), tls: certs)
        let ok = try await Command.run("/usr/bin/curl",
                                       ["-sS", "--cacert", certs.caCertificate.path, "-w", " %{http_version}",
                                        "https://localhost:\(f.port)/ok"])
        #expect(ok.status == 0)
        #expect(String(decoding: ok.stdout, as: UTF8.self) == "ok 1.1")
        let untrusted = try await Command.run("/usr/bin/curl", ["-sS", "https://localhost:\(f.port)/ok"])
        #expect(untrusted.status == 60, "curl refuses an unknown CA")
        let oldTLS = try await Command.run("/usr/bin/curl",
                                           ["-sS", "--cacert", certs.caCertificate.path, "--tlsv1.1", "--tls-max", "1.1",
                                            "https://localhost:\(f.port)/ok"])
        #expect(oldTLS.status != 0, "TLS 1.1 is refused")
        let plain = try RawConnection(port: f.port, receiveTimeoutSeconds: 3)
        plain.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await plain.readResponse() == nil, "plain HTTP on the TLS port gets no HTTP answer")
    }

    @Test func aMissingCertificateFileFailsAtStartWithOneLine() throws {
        var c = HTTPServer.Configuration()
        c.port = 0
        c.tls = .init(certificatePath: "/nonexistent/cert.pem", privateKeyPath: "/nonexistent/key.pem")
        let server = HTTPServer(configuration: c, router: Router(), logger: .disabled, metrics: MetricsRegistry())
        #expect(throws: HTTPServerError.self) { try server.start() }
    }

    @Test func shutdownLetsInFlightRequestsFinish() async throws {
        let latch = Latch()
        let entered = Latch()
        // A drain timeout and a request deadline no loaded machine reaches: the request must finish because it is let
        // finish, not because it was quick (under AddressSanitizer on a loaded CI machine, 30 s, the default deadline,
        // passed before the drain did, and the request was answered 503 for its deadline).
        let f = try ServerFixture.start(LimitsTests.router(latch: latch, entered: entered)) {
            $0.drainTimeoutSeconds = 120
            $0.requestDeadlineSeconds = 600
        }
        let c = try RawConnection(port: f.port)
        c.send("GET /wait HTTP/1.1\r\nHost: localhost\r\n\r\n")
        await entered.wait()   // the request is in its handler
        f.task.cancel()
        while (try? RawConnection(port: f.port)) != nil {   // shutdown has begun: the listener no longer accepts
            try await Task.sleep(for: .milliseconds(20))
        }
        latch.signal()
        let response = await c.readResponse()
        #expect(response?.status == 200)
        #expect(response?.header("Connection")?.lowercased() == "close")
        _ = try? await f.task.value
        #expect(throws: (any Error).self, "the listener is gone after shutdown") { try RawConnection(port: f.port) }
    }

    @Test func shutdownAnswersStragglers503AfterTheDrainTimeout() async throws {
        let entered = Latch()
        // The drain ends long before a request deadline no loaded machine reaches, so the 503 is the drain's.
        let f = try ServerFixture.start(LimitsTests.router(entered: entered)) {
            $0.drainTimeoutSeconds = 0.3
            $0.requestDeadlineSeconds = 600
        }
        let c = try RawConnection(port: f.port)
        c.send("GET /sleep HTTP/1.1\r\nHost: localhost\r\n\r\n")
        await entered.wait()   // the request is in its handler, which outlasts the drain
        await f.stop()
        let response = await c.readResponse()
        #expect(response?.status == 503)
        #expect(response?.text.contains("urn:mailwake:problem:shutting-down") == true)
    }

    @Test func theAdminListenerExposesMetricsHealthAndReadiness() async throws {
        let registry = MetricsRegistry()
        let app = try ServerFixture.start(LimitsTests.router())
        _ = try await app.get("/ok")
        let healthy = AdminRoutes.router(metrics: app.metrics, checks: ["postgres": { true }])
        let admin = try ServerFixture.start(healthy) { $0.name = "admin" }
        let metrics = try await admin.get("/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains(#"mailwake_test_http_requests_total{listener="http",method="GET",route="/ok",status="200"} 1"#))
        #expect(metrics.text.contains("# TYPE mailwake_test_http_request_duration_seconds histogram"))
        #expect(try await admin.get("/healthz").text == #"{"status":"ok"}"#)
        let ready = try await admin.get("/readyz")
        #expect(ready.status == 200)
        let failing = try ServerFixture.start(AdminRoutes.router(metrics: registry, checks: ["postgres": { false }, "accounts": { true }]))
        let notReady = try await failing.get("/readyz")
        #expect(notReady.status == 503)
        #expect(notReady.text == #"{"status":"not-ready","checks":{"accounts":"ok","postgres":"failing"}}"#)
    }
}
