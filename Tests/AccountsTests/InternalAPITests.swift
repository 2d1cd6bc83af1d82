import AccountsService
import Foundation
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakePostgres
import MailwakeProtocol
import TestSupport
import Testing

@Suite("Accounts: internal API, operator and entitlements", .serialized, .awaitedCleanup)
struct InternalAPITests {
    @Test func theInternalAPINeedsAServiceToken() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        #expect(try await f.send(.get, "/internal/v1/devices/\(device.id)/authorization").status == .unauthorized)
        #expect(try await f.send(.get, "/internal/v1/devices/\(device.id)/authorization", bearer: "wrong").status == .unauthorized)
        #expect(try await f.send(.get, "/internal/v1/devices/\(device.id)/authorization",
                                 bearer: AccountsFixture.operatorToken).status == .unauthorized)
        let ok = try await f.send(.get, "/internal/v1/devices/\(device.id)/authorization",
                                             bearer: AccountsFixture.serviceToken).decode(DeviceAuthorization.self)
        #expect(ok.deviceID == device.id)
        #expect(ok.active)
        #expect(!ok.entitled)
        #expect(ok.agreementKey == Base64URL.encode(device.agreement.publicKey.x963Representation))
        #expect(ok.apnsEnvironment == .sandbox)
    }

    @Test func aTrialEntitlesANewDeviceUntilItEnds() async throws {
        let f = try await AccountsFixture.start(trialDays: 7)
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        let during = try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing)
            .decode(AccountsResponses.Entitlement.self)
        #expect(during.entitled)
        #expect(during.source == "trial")
        #expect(during.entitledUntil == f.clock + 7 * 86400)
        f.advance(7 * 86400 + 1)
        let after = try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing)
            .decode(AccountsResponses.Entitlement.self)
        #expect(!after.entitled)
    }

    @Test func anUnexpiredPushPurchaseEntitlesAndARevocationEndsIt() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        let until = f.clock + 30 * 86400
        try await f.app.database.execute("""
            INSERT INTO app_store_transactions (original_transaction_id, last_transaction_id, product_id, environment, purchased_at,
                expires_at, signed_at_ms, updated_at)
            VALUES ('2000000001', '2000000001', 'net.mailwake.push.monthly', 'Sandbox', \(f.clock), \(until), \(f.clock * 1000),
                \(f.clock))
            """)
        try await f.app.database.execute("""
                                         INSERT INTO purchase_links (original_transaction_id, device_id, linked_at) VALUES \
                                         ('2000000001', \(device.id), \(f.clock))
                                         """)
        let entitled = try await f.send(.get, "/internal/v1/devices/\(device.id)/authorization",
                                                   bearer: AccountsFixture.serviceToken).decode(DeviceAuthorization.self)
        #expect(entitled.entitled)
        #expect(entitled.entitledUntil == until)
        try await f.app.database.execute("""
                                         UPDATE app_store_transactions SET revoked_at = \(f.clock) WHERE original_transaction_id = \
                                         '2000000001'
                                         """)
        let revoked = try await f.send(.get, "/internal/v1/devices/\(device.id)/authorization",
                                                  bearer: AccountsFixture.serviceToken).decode(DeviceAuthorization.self)
        #expect(!revoked.entitled)
    }

    @Test func anInvalidTokenReportClearsOnlyATokenNotReplacedSince() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        // APNs says the token died before the device re-registered it: keep it.
        let stale = try await f.send(.post, "/internal/v1/devices/\(device.id)/apns-token-invalid",
                                     json: #"{"apns_token":"\#(device.apnsToken)","timestamp":\#((f.clock - 60) * 1000)}"#,
                                     bearer: AccountsFixture.serviceToken)
        #expect(try !stale.decode(AccountsResponses.Cleared.self).cleared)
        f.advance(60)
        let fresh = try await f.send(.post, "/internal/v1/devices/\(device.id)/apns-token-invalid",
                                     json: #"{"apns_token":"\#(device.apnsToken)","timestamp":\#(f.clock * 1000)}"#,
                                     bearer: AccountsFixture.serviceToken)
        #expect(try fresh.decode(AccountsResponses.Cleared.self).cleared)
        let auth = try await f.send(.get, "/internal/v1/devices/\(device.id)/authorization",
                                                                           bearer: AccountsFixture.serviceToken)
                                                                               .decode(DeviceAuthorization.self)
        #expect(!auth.active)
    }

    @Test func diagnosticsFromTheRelayReachTheDeviceAndCarryNoPayload() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        let pairing = try PairingID.generate(), event = try EventID.generate()
        let batch = #"{"records":[{"device_id":"\#(device.id)","pairing_id":"\#(pairing)","event_id":"\#(event)","status":"delivered","# +
                    #""occurred_at":\#(f.clock)}]}"#
        #expect(try await f.send(.post, "/internal/v1/diagnostics", json: batch, bearer: AccountsFixture.serviceToken).status == .accepted)
        let bad = #"{"records":[{"device_id":"\#(device.id)","pairing_id":"\#(pairing)","event_id":"\#(event)","status":"delivered","# +
                  #""occurred_at":1,"payload":"x"}]}"#
        #expect(try await f.send(.post, "/internal/v1/diagnostics", json: bad, bearer: AccountsFixture.serviceToken).status == .badRequest)
        let oversize = #"{"records":[],"pad":""# + String(repeating: "x", count: 256 * 1024) + #""}"#
        #expect(try await f.send(.post, "/internal/v1/diagnostics", json: oversize, bearer: AccountsFixture.serviceToken).status
                == .contentTooLarge)
        let mine = try await f.send(.get, "/v1/devices/\(device.id)/diagnostics", signer: device.signing)
            .decode(AccountsResponses.Diagnostics.self)
        #expect(mine.records.map(\.eventID) == [event])
    }

    @Test func outpostsRegisterByProofOfPossessionAndOperatorsBlockThem() async throws {
        let f = try await AccountsFixture.start()
        let outpost = try P256.Signing.PrivateKey()
        let id = KeyIdentity.id(of: outpost.publicKey)
        let body = #"{"outpost_key":"\#(Base64URL.encode(outpost.publicKey.x963Representation))"}"#
        #expect(try await f.send(.post, "/v1/outposts", json: body, signer: outpost).status == .created)
        #expect(try await f.send(.post, "/v1/outposts", json: body, signer: try P256.Signing.PrivateKey()).status == .unauthorized)
        let seen = try await f.send(.get, "/internal/v1/outposts/\(id)", bearer: AccountsFixture.serviceToken)
            .decode(AccountsResponses.OutpostStanding.self)
        #expect(!seen.blocked)
        #expect(try await f.send(.put, "/operator/v1/outposts/\(id)/block", json: #"{"reason":"abuse"}"#,
                                 bearer: AccountsFixture.serviceToken).status == .unauthorized)
        #expect(try await f.send(.put, "/operator/v1/outposts/\(id)/block", json: #"{"reason":"abuse"}"#,
                                 bearer: AccountsFixture.operatorToken).status == .noContent)
        let blocked = try await f.send(.get, "/internal/v1/outposts/\(id)", bearer: AccountsFixture.serviceToken)
            .decode(AccountsResponses.OutpostStanding.self)
        #expect(blocked.blocked)
        #expect(try await f.send(.post, "/v1/outposts", json: body, signer: outpost).status == .forbidden)
    }

    @Test func theRelayRegistersAnOutpostOnItsFirstContactAndSeesItsBlock() async throws {
        let f = try await AccountsFixture.start()
        let outpost = try P256.Signing.PrivateKey()
        let id = KeyIdentity.id(of: outpost.publicKey)
        let body = #"{"outpost_key":"\#(Base64URL.encode(outpost.publicKey.x963Representation))"}"#
        #expect(try await f.send(.post, "/internal/v1/outposts", json: body).status == .unauthorized)
        let first = try await f.send(.post, "/internal/v1/outposts", json: body, bearer: AccountsFixture.serviceToken)
        #expect(first.status == .created)
        #expect(try first.decode(AccountsResponses.OutpostStanding.self).outpostID == id)
        #expect(try await f.send(.post, "/internal/v1/outposts", json: body, bearer: AccountsFixture.serviceToken).status == .ok)
        #expect(try await f.send(.put, "/operator/v1/outposts/\(id)/block", json: #"{"reason":"spam"}"#,
                                 bearer: AccountsFixture.operatorToken).status == .noContent)
        let again = try await f.send(.post, "/internal/v1/outposts", json: body, bearer: AccountsFixture.serviceToken)
            .decode(AccountsResponses.OutpostStanding.self)
        #expect(again.blocked)
        let notAPoint = #"{"outpost_key":"\#(Base64URL.encode([4] + [UInt8](repeating: 1, count: 64)))"}"#
        #expect(try await f.send(.post, "/internal/v1/outposts", json: notAPoint,
                                 bearer: AccountsFixture.serviceToken).status == .badRequest)
    }

    @Test func theRelayReadsALiveActivityUpdateToken() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        let path = "/internal/v1/devices/\(device.id)/live-activities/activity-1"
        #expect(try await f.send(.get, path, bearer: AccountsFixture.serviceToken).status == .notFound)
        let token = String(repeating: "ab", count: 40)
        #expect(try await f.send(.post, "/v1/devices/\(device.id)/live-activity-tokens",
                                 json: #"{"activity_id":"activity-1","token":"\#(token)"}"#,
                                 signer: device.signing).status == .noContent)
        #expect(try await f.send(.get, path).status == .unauthorized)
        let read = try await f.send(.get, path, bearer: AccountsFixture.serviceToken)
        #expect(try read.decode(AccountsResponses.ActivityToken.self).token == token)
    }

    @Test func aBlockedDeviceIsRefusedEverywhereAtOnce() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        #expect(try await f.send(.put, "/operator/v1/devices/\(device.id)/block", json: #"{"reason":"chargeback fraud"}"#,
                                 bearer: AccountsFixture.operatorToken).status == .noContent)
        let auth = try await f.send(.get, "/internal/v1/devices/\(device.id)/authorization",
                                                                           bearer: AccountsFixture.serviceToken)
                                                                               .decode(DeviceAuthorization.self)
        #expect(!auth.active)
        #expect(try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing).status == .forbidden)
        #expect(try await f.register(device).status == .forbidden)
        #expect(try await f.send(.delete, "/operator/v1/devices/\(device.id)/block",
                                 bearer: AccountsFixture.operatorToken).status == .noContent)
        #expect(try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing).status == .ok)
    }

    @Test func logsNeverCarryTokensOrKeys() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        _ = try await f.send(.get, "/internal/v1/devices/\(device.id)/authorization", bearer: AccountsFixture.serviceToken)
        await f.stop()
        for line in f.logs.lines {
            #expect(!line.contains(device.apnsToken))
            #expect(!line.contains(AccountsFixture.serviceToken))
            #expect(!line.contains(Base64URL.encode(device.signing.publicKey.x963Representation)))
        }
    }
}

@Suite("Accounts: batched authorizations for the relay", .serialized, .awaitedCleanup)
struct BatchedAuthorizationTests {
    func query(_ f: AccountsFixture, _ ids: [String], bearer: String? = AccountsFixture.serviceToken) async throws -> HTTPClient.Response {
        let body = try JSONSerialization.data(withJSONObject: ["device_ids": ids])
        return try await f.send(.post, "/internal/v1/authorizations", json: String(decoding: body, as: UTF8.self), bearer: bearer)
    }

    @Test func knownDevicesAnswerAsTheSingleLookUpAndUnknownOnesAreLeftOut() async throws {
        let f = try await AccountsFixture.start(trialDays: 7)
        let devices = try (0..<3).map { _ in try AccountsFixture.Device.make() }
        for d in devices { _ = try await f.register(d) }
        let unknown = try AccountsFixture.Device.make().id
        let response = try await query(f, devices.map(\.id) + [unknown, devices[0].id])
        #expect(response.status == .ok)
        let batch = try response.decode(AccountsResponses.AuthorizationBatch.self)
        #expect(Set(batch.authorizations.map(\.deviceID)) == Set(devices.map(\.id)))
        // The raw objects, to compare byte for byte with the single look-up (null and absent fields included).
        let list = try #require(f.json(response)["authorizations"] as? [[String: Any]])
        for d in devices {
            let single = try f.json(try await f.send(.get, "/internal/v1/devices/\(d.id)/authorization",
                                                     bearer: AccountsFixture.serviceToken))
            let batched = try #require(list.first { $0["device_id"] as? String == d.id })
            let canonical = { (o: [String: Any]) in try JSONSerialization.data(withJSONObject: o, options: .sortedKeys) }
            #expect(try canonical(batched) == canonical(single), "the batch answers exactly what the single look-up does")
        }
    }

    @Test func everyDistinctDeviceAskedAboutCountsInTheLookUpMetric() async throws {
        let f = try await AccountsFixture.start(trialDays: 7)
        let known = try AccountsFixture.Device.make()
        _ = try await f.register(known)
        let unknown = try AccountsFixture.Device.make().id
        #expect(try await query(f, [known.id, unknown, known.id]).status == .ok)
        #expect(try await f.send(.get, "/internal/v1/devices/\(known.id)/authorization",
                                 bearer: AccountsFixture.serviceToken).status == .ok)
        #expect(f.app.metrics.render().contains("\nmailwake_accounts_authorization_devices_total 3\n"),
                "two distinct devices in the batch, one single look-up")
    }

    @Test func onlyTheRelaysServiceTokenMayAsk() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        #expect(try await query(f, [device.id], bearer: nil).status == .unauthorized)
        #expect(try await query(f, [device.id], bearer: AccountsFixture.operatorToken).status == .unauthorized)
    }

    @Test func emptyOversizeAndMalformedQueriesAreRefused() async throws {
        let f = try await AccountsFixture.start()
        let id = try AccountsFixture.Device.make().id
        #expect(try await query(f, []).status == .badRequest)
        #expect(try await query(f, Array(repeating: id, count: AuthorizationQueryLimit.maxDevices + 1)).status == .contentTooLarge)
        #expect(try await query(f, [id, "not-a-key-id"]).status == .badRequest)
        #expect(try await f.send(.post, "/internal/v1/authorizations", json: #"{"device_ids":["\#(id)"],"all":true}"#,
                                 bearer: AccountsFixture.serviceToken).status == .badRequest)
        #expect(try await f.send(.post, "/internal/v1/authorizations", json: "{",
                                 bearer: AccountsFixture.serviceToken).status == .badRequest)
    }
}

/// The batch limit accounts enforces (kept here so a change to it is a test change).
enum AuthorizationQueryLimit {
    static let maxDevices = 500
}
