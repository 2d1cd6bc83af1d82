import APNsSimulatorCore
import Foundation
import MailwakeCore
import MailwakeHTTPClient
import TestSupport
import Testing

/// What the simulator does with requests APNs would accept.
@Suite(.awaitedCleanup) struct AcceptedPushTests {
    @Test func aValidAlertPushAnswers200AndIsRecordedWithItsHeadersAndPayload() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.collapseID = "3f1c2d9e-collapse"
            let issuedAt = nowSeconds()
            push.authorization = .raw(try sim.authorization(issuedAt: issuedAt))
            let response = try await sim.send(push, with: client)

            #expect(response.status == .ok)
            #expect(response.version == .http2)
            #expect(response.headers["apns-id"] == push.apnsID)
            #expect(response.body.isEmpty)

            let delivery = try #require(try await sim.deliveries().first)
            #expect(delivery.seq == 1)
            #expect(delivery.status == 200 && delivery.reason == nil)
            #expect(delivery.deviceToken == push.token)
            #expect(delivery.topic == "net.mailwake.app")
            #expect(delivery.pushType == "alert")
            #expect(delivery.priority == 10)
            #expect(delivery.apnsID == push.apnsID)
            #expect(delivery.collapseID == "3f1c2d9e-collapse")
            #expect(delivery.expiration == 1_900_000_000)
            #expect(delivery.jwtKeyID == "SIMKEY0001" && delivery.jwtIssuer == "SIMTEAM001" && delivery.jwtIssuedAt == issuedAt)
            #expect(delivery.payloadBytes == push.payload)
            #expect(delivery.connection >= 1 && delivery.stream >= 1)
        }
    }

    @Test func withoutAnApnsIDTheAnswerCarriesAFreshUUID() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.apnsID = nil
            let response = try await sim.send(push, with: client)
            #expect(response.status == .ok)
            let id = try #require(response.headers["apns-id"])
            #expect(RequestValidator.isUUID(id))
            #expect(try await sim.deliveries().first?.apnsID == nil, "the record keeps what the request carried")
        }
    }

    @Test func aLiveActivityPushUsesTheLiveActivityTopic() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.pushType = "liveactivity"
            push.topic = "net.mailwake.app.push-type.liveactivity"
            push.payload = Array(#"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"mw":{}}}}"#.utf8)
            let response = try await sim.send(push, with: client)
            #expect(response.status == .ok)
        }
    }

    @Test func optionalHeadersMayBeLeftOut() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.priority = nil
            push.expiration = nil
            push.apnsID = nil
            let response = try await sim.send(push, with: client)
            #expect(response.status == .ok)
        }
    }

    @Test func thePublicKeyAloneVerifiesProviderTokens() async throws {
        try await withSimulator(options: [.publicKeyFile]) { sim, client in
            let response = try await sim.send(Push(), with: client)
            #expect(response.status == .ok)
        }
    }

    @Test func aRepeatedProviderTokenIsVerifiedOnce() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.authorization = .raw(try sim.authorization())
            for _ in 0..<5 { #expect(try await sim.send(push, with: client).status.code == 200) }
            #expect(try await sim.stats().providerTokenVerifications == 1)
        }
    }

    @Test func aPayloadOfExactly4096BytesIsAccepted() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            let prefix = Array(#"{"aps":{},"pad":""#.utf8), suffix = Array(#""}"#.utf8)
            push.payload = prefix + [UInt8](repeating: 0x61, count: 4096 - prefix.count - suffix.count) + suffix
            #expect(push.payload.count == 4096)
            let response = try await sim.send(push, with: client)
            #expect(response.status == .ok)
        }
    }
}

/// What the simulator tolerates as Apple does, and refuses with `--strict`.
@Suite(.awaitedCleanup) struct AppleLenienceTests {
    /// Runs the no-ALPN client against `sim` and returns what it printed.
    func pushWithoutALPN(_ sim: APNsSimulatorProcess) async throws -> String {
        let script = RepositoryPaths.file("Tests/Fixtures/apns/h2_without_alpn.py").path
        let client = try TestServerProcess(executable: PythonHTTPTestServer.python, arguments: [
            script, "127.0.0.1", String(sim.port), sim.caFile, try sim.authorization(), deviceToken(7), "net.mailwake.app",
        ], logName: "h2-without-alpn", pipeStdout: true)
        return await OwnThread.run { client.readStdoutLine() ?? "" }
    }

    @Test func aClientWithoutALPNSpeakingHTTP2ByPriorKnowledgeIsServed() async throws {
        try await withSimulator(options: [.appleLenient]) { sim, _ in
            let printed = try await pushWithoutALPN(sim)
            #expect(printed == "status=200")
            let delivery = try #require(try await sim.deliveries().first)
            #expect(delivery.status == 200 && delivery.pushType == nil, "recorded as sent: without apns-push-type")
        }
    }

    @Test func aStrictSimulatorRefusesAClientWithoutALPN() async throws {
        try await withSimulator { sim, _ in
            let printed = try await pushWithoutALPN(sim)
            #expect(printed.hasPrefix("refused"), "\(printed)")
            let deliveries = try await sim.deliveries()
            #expect(deliveries.isEmpty)
        }
    }

    @Test func aPushWithoutAPNsPushTypeIsAnAlertAsOnIOS() async throws {
        try await withSimulator(options: [.appleLenient]) { sim, client in
            let response = try await sim.send(Push().with(\.pushType, nil), with: client)
            #expect(response.status == .ok)
            let delivery = try #require(try await sim.deliveries().first)
            #expect(delivery.status == 200 && delivery.pushType == nil)
        }
    }

    @Test func aLenientSimulatorStillRefusesAnUnknownPushType() async throws {
        try await withSimulator(options: [.appleLenient]) { sim, client in
            let response = try await sim.send(Push().with(\.pushType, "banner"), with: client)
            #expect(response.status == .badRequest && response.reason == "InvalidPushType")
        }
    }
}
