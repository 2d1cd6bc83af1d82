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
        try await expectRefusal(Push().with(\.method, .get), status: 405, reason: .methodNotAllowed)
    }

    @Test func aPathOtherThan3DeviceIsBadPath() async throws {
        try await expectRefusal(Push().with(\.path, "/3/devices/" + Push().token), status: 404, reason: .badPath)
    }

    @Test func aTokenThatIsNotHexadecimalIsBadDeviceToken() async throws {
        try await expectRefusal(Push().with(\.token, String(repeating: "zz", count: 32)), status: 400, reason: .badDeviceToken)
    }

    @Test func aTokenShorterThan64DigitsIsBadDeviceToken() async throws {
        try await expectRefusal(Push().with(\.token, String(repeating: "ab", count: 31)), status: 400, reason: .badDeviceToken)
    }

    @Test func noAuthorizationIsMissingProviderToken() async throws {
        try await expectRefusal(Push().with(\.authorization, Push.Authorization.none), status: 403, reason: .missingProviderToken)
    }

    @Test func aJWTWithOneFlippedSignatureBitIsInvalidProviderToken() async throws {
        try await expectRefusal(status: 403, reason: .invalidProviderToken) { sim in
            let parts = try sim.authorization().dropFirst("bearer ".count).split(separator: ".").map(String.init)
            var signature = try #require(Base64URL.decode(parts[2]))
            signature[17] ^= 0x04
            return .authorized("bearer " + parts[0] + "." + parts[1] + "." + Base64URL.encode(signature))
        }
    }

    @Test func aJWTWithAnExpiredIatIsExpiredProviderToken() async throws {
        try await expectRefusal(status: 403, reason: .expiredProviderToken) { sim in
            .authorized(try sim.authorization(issuedAt: nowSeconds() - 3601))
        }
    }

    @Test func theTokenAgeLimitIsConfigurable() async throws {
        try await withSimulator(options: [.tokenMaxAge(seconds: 60)]) { sim, client in
            let old = try await sim.send(.authorized(try sim.authorization(issuedAt: nowSeconds() - 120)), with: client)
            #expect(old.reason == "ExpiredProviderToken")
            let recent = try await sim.send(.authorized(try sim.authorization(issuedAt: nowSeconds() - 10)), with: client)
            #expect(recent.status == .ok)
        }
    }

    @Test func aJWTWithAnUnknownKeyIDIsInvalidProviderToken() async throws {
        try await expectRefusal(status: 403, reason: .invalidProviderToken) { sim in
            .authorized(try sim.authorization(keyID: "OTHERKEY01"))
        }
    }

    @Test func aJWTFromAnotherTeamIsInvalidProviderToken() async throws {
        try await expectRefusal(status: 403, reason: .invalidProviderToken) { sim in
            .authorized(try sim.authorization(teamID: "OTHERTEAM1"))
        }
    }

    @Test func aJWTSignedWithAnotherKeyIsInvalidProviderToken() async throws {
        try await expectRefusal(status: 403, reason: .invalidProviderToken) { sim in
            .authorized(try sim.authorization(key: try P256.Signing.PrivateKey()))
        }
    }

    @Test func aJWTWhoseAlgIsNotES256IsInvalidProviderToken() async throws {
        try await expectRefusal(status: 403, reason: .invalidProviderToken) { sim in
            let header = Base64URL.encode(Array(#"{"alg":"HS256","kid":"SIMKEY0001"}"#.utf8))
            let claims = Base64URL.encode(Array(#"{"iss":"SIMTEAM001","iat":\#(nowSeconds())}"#.utf8))
            let signature = try sim.signingKey.signature(for: Array("\(header).\(claims)".utf8))
            return .authorized("bearer \(header).\(claims).\(Base64URL.encode(signature.rawRepresentation))")
        }
    }

    @Test func aMalformedJWTIsInvalidProviderToken() async throws {
        try await expectRefusal(Push().with(\.authorization, .raw("bearer not-a-jwt")), status: 403, reason: .invalidProviderToken)
    }

    @Test func noTopicIsMissingTopic() async throws {
        try await expectRefusal(Push().with(\.topic, nil), status: 400, reason: .missingTopic)
    }

    @Test func anotherAppsTopicIsTopicDisallowed() async throws {
        try await expectRefusal(Push().with(\.topic, "com.example.other"), status: 400, reason: .topicDisallowed)
    }

    @Test func anAlertOnTheLiveActivityTopicIsTopicDisallowed() async throws {
        try await expectRefusal(Push().with(\.topic, "net.mailwake.app.push-type.liveactivity"), status: 400, reason: .topicDisallowed)
    }

    @Test func noPushTypeIsInvalidPushType() async throws {
        try await expectRefusal(Push().with(\.pushType, nil), status: 400, reason: .invalidPushType)
    }

    @Test func anUnknownPushTypeIsInvalidPushType() async throws {
        try await expectRefusal(Push().with(\.pushType, "banner"), status: 400, reason: .invalidPushType)
    }

    @Test func aPriorityOtherThan1Or5Or10IsBadPriority() async throws {
        try await expectRefusal(Push().with(\.priority, "7"), status: 400, reason: .badPriority)
    }

    @Test func anApnsIDThatIsNotAUUIDIsBadMessageId() async throws {
        try await expectRefusal(Push().with(\.apnsID, "not-a-uuid"), status: 400, reason: .badMessageId)
    }

    @Test func anExpirationThatIsNotAnIntegerIsBadExpirationDate() async throws {
        try await expectRefusal(Push().with(\.expiration, "tomorrow"), status: 400, reason: .badExpirationDate)
    }

    @Test func aCollapseIDOver64BytesIsBadCollapseId() async throws {
        try await expectRefusal(Push().with(\.collapseID, String(repeating: "c", count: 65)), status: 400, reason: .badCollapseId)
    }

    @Test func anEmptyBodyIsPayloadEmpty() async throws {
        try await expectRefusal(Push().with(\.payload, []), status: 400, reason: .payloadEmpty)
    }

    @Test func aBodyOver4096BytesIsPayloadTooLarge() async throws {
        var push = Push()
        let prefix = Array(#"{"aps":{},"pad":""#.utf8), suffix = Array(#""}"#.utf8)
        push.payload = prefix + [UInt8](repeating: 0x61, count: 4097 - prefix.count - suffix.count) + suffix
        try await expectRefusal(push, status: 413, reason: .payloadTooLarge)
    }

    @Test func aBodyThatIsNotAJSONObjectIsBadPayload() async throws {
        try await expectRefusal(Push().with(\.payload, Array(#"["aps"]"#.utf8)), status: 400, reason: .badPayload)
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
