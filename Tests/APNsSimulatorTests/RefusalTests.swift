import APNsSimulatorCore
import Foundation
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeProtocol
import TestSupport
import Testing

/// Every check APNs makes, one refusal each, in the simulator's order.
@Suite(.awaitedCleanup) struct RefusalTests {
    @Test func aMethodOtherThanPOSTIsMethodNotAllowed() async throws {
        var push = Push()
        push.method = .get
        try await expectRefusal(push, status: 405, reason: .methodNotAllowed)
    }

    @Test func aPathOtherThan3DeviceIsBadPath() async throws {
        var push = Push()
        push.path = "/3/devices/" + push.token
        try await expectRefusal(push, status: 404, reason: .badPath)
    }

    @Test func aTokenThatIsNotHexadecimalIsBadDeviceToken() async throws {
        var push = Push()
        push.token = String(repeating: "zz", count: 32)
        try await expectRefusal(push, status: 400, reason: .badDeviceToken)
    }

    @Test func aTokenShorterThan64DigitsIsBadDeviceToken() async throws {
        var push = Push()
        push.token = String(repeating: "ab", count: 31)
        try await expectRefusal(push, status: 400, reason: .badDeviceToken)
    }

    @Test func noAuthorizationIsMissingProviderToken() async throws {
        var push = Push()
        push.authorization = .none
        try await expectRefusal(push, status: 403, reason: .missingProviderToken)
    }

    @Test func aJWTWithOneFlippedSignatureBitIsInvalidProviderToken() async throws {
        try await withSimulator { sim, client in
            let jwt = String(try sim.authorization().dropFirst("bearer ".count))
            let parts = jwt.split(separator: ".").map(String.init)
            var signature = try #require(Base64URL.decode(parts[2]))
            signature[17] ^= 0x04
            var push = Push()
            push.authorization = .raw("bearer " + parts[0] + "." + parts[1] + "." + Base64URL.encode(signature))
            let response = try await sim.send(push, with: client)
            #expect(response.status.code == 403 && response.reason == "InvalidProviderToken")
        }
    }

    @Test func aJWTWithAnExpiredIatIsExpiredProviderToken() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.authorization = .raw(try sim.authorization(issuedAt: nowSeconds() - 3601))
            let response = try await sim.send(push, with: client)
            #expect(response.status.code == 403 && response.reason == "ExpiredProviderToken")
        }
    }

    @Test func theTokenAgeLimitIsConfigurable() async throws {
        try await withSimulator(options: [.tokenMaxAge(seconds: 60)]) { sim, client in
            var push = Push()
            push.authorization = .raw(try sim.authorization(issuedAt: nowSeconds() - 120))
            #expect(try await sim.send(push, with: client).reason == "ExpiredProviderToken")
            push.authorization = .raw(try sim.authorization(issuedAt: nowSeconds() - 10))
            let response = try await sim.send(push, with: client)
            #expect(response.status == .ok)
        }
    }

    @Test func aJWTWithAnUnknownKeyIDIsInvalidProviderToken() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.authorization = .raw(try sim.authorization(keyID: "OTHERKEY01"))
            let response = try await sim.send(push, with: client)
            #expect(response.status.code == 403 && response.reason == "InvalidProviderToken")
        }
    }

    @Test func aJWTFromAnotherTeamIsInvalidProviderToken() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.authorization = .raw(try sim.authorization(teamID: "OTHERTEAM1"))
            #expect(try await sim.send(push, with: client).reason == "InvalidProviderToken")
        }
    }

    @Test func aJWTSignedWithAnotherKeyIsInvalidProviderToken() async throws {
        try await withSimulator { sim, client in
            var push = Push()
            push.authorization = .raw(try sim.authorization(key: try P256.Signing.PrivateKey()))
            #expect(try await sim.send(push, with: client).reason == "InvalidProviderToken")
        }
    }

    @Test func aJWTWhoseAlgIsNotES256IsInvalidProviderToken() async throws {
        try await withSimulator { sim, client in
            let header = Base64URL.encode(Array(#"{"alg":"HS256","kid":"SIMKEY0001"}"#.utf8))
            let claims = Base64URL.encode(Array(#"{"iss":"SIMTEAM001","iat":\#(nowSeconds())}"#.utf8))
            let signature = try sim.signingKey.signature(for: Array("\(header).\(claims)".utf8))
            var push = Push()
            push.authorization = .raw("bearer \(header).\(claims).\(Base64URL.encode(signature.rawRepresentation))")
            #expect(try await sim.send(push, with: client).reason == "InvalidProviderToken")
        }
    }

    @Test func aMalformedJWTIsInvalidProviderToken() async throws {
        var push = Push()
        push.authorization = .raw("bearer not-a-jwt")
        try await expectRefusal(push, status: 403, reason: .invalidProviderToken)
    }

    @Test func noTopicIsMissingTopic() async throws {
        var push = Push()
        push.topic = nil
        try await expectRefusal(push, status: 400, reason: .missingTopic)
    }

    @Test func anotherAppsTopicIsTopicDisallowed() async throws {
        var push = Push()
        push.topic = "com.example.other"
        try await expectRefusal(push, status: 400, reason: .topicDisallowed)
    }

    @Test func anAlertOnTheLiveActivityTopicIsTopicDisallowed() async throws {
        var push = Push()
        push.topic = "net.mailwake.app.push-type.liveactivity"
        try await expectRefusal(push, status: 400, reason: .topicDisallowed)
    }

    @Test func noPushTypeIsInvalidPushType() async throws {
        var push = Push()
        push.pushType = nil
        try await expectRefusal(push, status: 400, reason: .invalidPushType)
    }

    @Test func anUnknownPushTypeIsInvalidPushType() async throws {
        var push = Push()
        push.pushType = "banner"
        try await expectRefusal(push, status: 400, reason: .invalidPushType)
    }

    @Test func aPriorityOtherThan1Or5Or10IsBadPriority() async throws {
        var push = Push()
        push.priority = "7"
        try await expectRefusal(push, status: 400, reason: .badPriority)
    }

    @Test func anApnsIDThatIsNotAUUIDIsBadMessageId() async throws {
        var push = Push()
        push.apnsID = "not-a-uuid"
        try await expectRefusal(push, status: 400, reason: .badMessageId)
    }

    @Test func anExpirationThatIsNotAnIntegerIsBadExpirationDate() async throws {
        var push = Push()
        push.expiration = "tomorrow"
        try await expectRefusal(push, status: 400, reason: .badExpirationDate)
    }

    @Test func aCollapseIDOver64BytesIsBadCollapseId() async throws {
        var push = Push()
        push.collapseID = String(repeating: "c", count: 65)
        try await expectRefusal(push, status: 400, reason: .badCollapseId)
    }

    @Test func anEmptyBodyIsPayloadEmpty() async throws {
        var push = Push()
        push.payload = []
        try await expectRefusal(push, status: 400, reason: .payloadEmpty)
    }

    @Test func aBodyOver4096BytesIsPayloadTooLarge() async throws {
        var push = Push()
        let prefix = Array(#"{"aps":{},"pad":""#.utf8), suffix = Array(#""}"#.utf8)
        push.payload = prefix + [UInt8](repeating: 0x61, count: 4097 - prefix.count - suffix.count) + suffix
        try await expectRefusal(push, status: 413, reason: .payloadTooLarge)
    }

    @Test func aBodyThatIsNotAJSONObjectIsBadPayload() async throws {
        var push = Push()
        push.payload = Array(#"["aps"]"#.utf8)
        try await expectRefusal(push, status: 400, reason: .badPayload)
    }

    @Test func theFirstFailedCheckIsTheAnswer() async throws {
        var push = Push()
        push.token = "xyz"           // BadDeviceToken comes before …
        push.authorization = .none   // … MissingProviderToken, …
        push.priority = "3"          // … BadPriority and …
        push.payload = []            // … PayloadEmpty.
        try await expectRefusal(push, status: 400, reason: .badDeviceToken)
    }
}
