import APNsSimulatorCore
import Foundation
import MailwakeCore
import MailwakeCrypto
import Testing

/// The simulator's logic in process, without a server.
@Suite struct SimulatorCoreTests {
    static let key = try! P256.Signing.PrivateKey()

    static func validator(maxAge: Int64 = 3600) -> RequestValidator {
        RequestValidator(bundleID: "net.mailwake.app",
                         verifier: ProviderTokenVerifier(keyID: "K1", teamID: "T1", publicKey: key.publicKey, maxAge: maxAge))
    }

    static func request(_ adjust: (inout SimulatorRequest) -> Void = { _ in }) throws -> SimulatorRequest {
        let jwt = try ProviderToken(keyID: "K1", teamID: "T1", issuedAt: 1_700_000_000).signed(with: key)
        var r = SimulatorRequest(method: "POST", path: "/3/device/" + String(repeating: "0f", count: 32), authorization: "bearer " + jwt,
                                 topic: "net.mailwake.app", pushType: "alert", priority: "10", body: Array(#"{"aps":{}}"#.utf8))
        adjust(&r)
        if r.bodyLength < r.body.count { r.bodyLength = r.body.count }
        return r
    }

    @Test func aValidRequestPassesEveryCheck() throws {
        let inspection = Self.validator().inspect(try Self.request(), now: 1_700_000_100)
        #expect(inspection.refusal == nil)
        #expect(inspection.providerToken == ProviderToken(keyID: "K1", teamID: "T1", issuedAt: 1_700_000_000))
        #expect(inspection.deviceToken == String(repeating: "0f", count: 32))
    }

    @Test func tokensAreCheckedForAgeOnEveryUseButVerifiedOnce() throws {
        let validator = Self.validator(maxAge: 60)
        let request = try Self.request()
        #expect(validator.inspect(request, now: 1_700_000_030).refusal == nil)
        #expect(validator.inspect(request, now: 1_700_000_061).refusal == .expiredProviderToken)
        #expect(validator.inspect(request, now: 1_699_999_000).refusal == .invalidProviderToken, "issued far in the future")
        #expect(validator.verifier.verifications == 1)
    }

    @Test func theBearerSchemeIsCaseInsensitiveAndAnyOtherIsInvalid() throws {
        let validator = Self.validator()
        var request = try Self.request()
        request.authorization = request.authorization!.replacingOccurrences(of: "bearer", with: "Bearer")
        #expect(validator.inspect(request, now: 1_700_000_000).refusal == nil)
        request.authorization = "Basic dXNlcjpwYXNz"
        #expect(validator.inspect(request, now: 1_700_000_000).refusal == .invalidProviderToken)
        request.authorization = "bearer "
        #expect(validator.inspect(request, now: 1_700_000_000).refusal == .missingProviderToken)
    }

    @Test func anEmptyDeviceTokenIsMissingDeviceToken() throws {
        let inspection = Self.validator().inspect(try Self.request { $0.path = "/3/device/" }, now: 1_700_000_000)
        #expect(inspection.refusal == .missingDeviceToken)
    }

    @Test func eachPushTypeHasItsTopic() throws {
        let validator = Self.validator()
        for (type, suffix) in RequestValidator.topicSuffixes {
            let ok = try Self.request { $0.pushType = type; $0.topic = "net.mailwake.app" + suffix }
            #expect(validator.inspect(ok, now: 1_700_000_000).refusal == nil, "\(type)")
        }
        let voip = try Self.request {
            $0.pushType = "voip"
            $0.topic = "net.mailwake.app.voip"
            $0.body = Array(#"{"a":""#.utf8) + [UInt8](repeating: 0x62, count: 5000) + Array(#""}"#.utf8)
            $0.bodyLength = $0.body.count
        }
        #expect(validator.inspect(voip, now: 1_700_000_000).refusal == nil, "VoIP payloads may reach 5120 bytes")
    }

    @Test func aBodyCutByTheTransportIsPayloadTooLarge() throws {
        let cut = try Self.request { $0.bodyLength = 100_000 }
        #expect(Self.validator().inspect(cut, now: 1_700_000_000).refusal == .payloadTooLarge)
    }

    @Test func failureRatesPartitionTheDraw() throws {
        let rates = try FailureRates([410: 0.1, 503: 0.2])
        #expect(rates.status(forDraw: 0.05) == 410)
        #expect(rates.status(forDraw: 0.15) == 503)
        #expect(rates.status(forDraw: 0.29) == 503)
        #expect(rates.status(forDraw: 0.31) == nil)
        #expect(throws: SimulatorError.self) { try FailureRates([500: 1.5]) }
    }

    @Test func behavioursWithTimesAreUsedUp() {
        let table = BehaviourTable()
        let token = String(repeating: "AB", count: 32)
        table.set(Behaviour(token: token, status: 410, times: 2))
        #expect(table.take(token: token.lowercased())?.status == 410)
        #expect(table.take(token: token)?.status == 410)
        #expect(table.take(token: token) == nil)
    }

    @Test func theDeliveryLogIsBoundedAndPagesBySequence() throws {
        let log = try DeliveryLog(capacity: 3, recordPath: nil)
        for n in 1...5 {
            log.append(Delivery(seq: 0, receivedAtMS: Int64(n), connection: 1, stream: Int32(n), payload: "{}", status: 200))
        }
        #expect(log.count == 3)
        let page = try #require(try JSONSerialization.jsonObject(with: Data(log.page(since: 0, limit: 2))) as? [String: Any])
        let seqs = (page["deliveries"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int }
        #expect(seqs == [3, 4])
        #expect(page["next"] as? Int == 4)

        log.clear()
        for n in 6...7 { log.append(Delivery(seq: 0, receivedAtMS: Int64(n), connection: 1, stream: Int32(n), payload: "{}",
                                             status: 200)) }
        let afterClear = try #require(try JSONSerialization.jsonObject(with: Data(log.page(since: 0, limit: 10))) as? [String: Any])
        #expect((afterClear["deliveries"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [6, 7])
    }

    @Test func theSimulatorAnswersErrorsWithAReasonBody() throws {
        var configuration = SimulatorConfiguration(certificateFile: "-", privateKeyFile: "-", topic: "net.mailwake.app", keyID: "K1",
                                                   teamID: "T1",
                                                   publicKey: Self.key.publicKey)
        configuration.minimumTokenUpdateInterval = 0 // a new provider token per request
        let sim = try APNsSimulator(configuration: configuration, logger: .disabled, clock: { 1_700_000_000_000 })
        let refused = sim.handle(try Self.request { $0.topic = nil })
        #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self) == #"{"reason":"MissingTopic"}"#)
        sim.behaviours.set(Behaviour(token: String(repeating: "0f", count: 32), status: 410, times: 1))
        let gone = sim.handle(try Self.request())
        #expect(String(decoding: gone.body, as: UTF8.self) == #"{"reason":"Unregistered","timestamp":1700000000000}"#)
        let ok = sim.handle(try Self.request { $0.apnsID = "0E8B1A5C-1B2D-4E3F-9A8B-7C6D5E4F3A2B" })
        #expect(ok == SimulatorResponse(status: 200, apnsID: "0E8B1A5C-1B2D-4E3F-9A8B-7C6D5E4F3A2B"))
    }
}
