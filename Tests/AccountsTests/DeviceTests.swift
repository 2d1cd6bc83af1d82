import AccountsService
import Foundation
import MailwakeCrypto
import MailwakeHTTPTypes
import MailwakeProtocol
import TestSupport
import Testing

@Suite("Accounts: devices", .serialized, .awaitedCleanup)
struct DeviceTests {
    /// Over the listener, so one device flow crosses a real socket; the rest of the suite runs in memory.
    @Test func aDeviceRegistersWithProofOfPossessionAndGetsItsID() async throws {
        let f = try await AccountsFixture.start(transport: .socket)
        let device = try AccountsFixture.Device.make()
        let response = try await f.register(device)
        #expect(response.status == .created)
        let body = try response.decode(AccountsResponses.Registration.self)
        #expect(body.deviceID == device.id)
        #expect(body.sessionID.count == 22)
        #expect(try await f.register(device).status == .ok, "registering again refreshes the device")
    }

    @Test func registrationSignedByAnotherKeyIsRefused() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        let response = try await f.send(.post, "/v1/devices", json: device.registrationJSON(), signer: try P256.Signing.PrivateKey())
        #expect(response.status == .unauthorized)
        #expect(String(decoding: response.body, as: UTF8.self).contains("urn:mailwake:problem:wrong_key"))
    }

    @Test func aReplayedRegistrationIsRefused() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        let body = device.registrationJSON()
        let header = try RequestSigner(key: device.signing).sign(method: "POST", origin: f.origin, pathAndQuery: "/v1/devices",
                                                                 body: Array(body.utf8), timestamp: f.clock)
        let first = try await f.send(.post, "/v1/devices", json: body, headers: [SignatureHeader.name: header.value])
        #expect(first.status == .created)
        let replay = try await f.send(.post, "/v1/devices", json: body, headers: [SignatureHeader.name: header.value])
        #expect(replay.status == .unauthorized)
        #expect(String(decoding: replay.body, as: UTF8.self).contains("urn:mailwake:problem:replayed"))
    }

    @Test func aStaleSignatureIsRefused() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        let response = try await f.send(.post, "/v1/devices", json: device.registrationJSON(), signer: device.signing,
                                        signedAt: f.clock - 301)
        #expect(response.status == .unauthorized)
        #expect(String(decoding: response.body, as: UTF8.self).contains("clock_skew"))
    }

    @Test(arguments: [#"{"signing_key":"x"}"#, #"{}"#, "not json"])
    func malformedRegistrationsAre400(body: String) async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        #expect(try await f.send(.post, "/v1/devices", json: body, signer: device.signing).status == .badRequest)
    }

    @Test func aDeviceUpdatesItsTokenAndOthersCannot() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make(), other = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        _ = try await f.register(other)
        let newToken = Hex.encode(try SecureRandom.bytes(32))
        let ok = try await f.send(.patch, "/v1/devices/\(device.id)", json: #"{"apns_token":"\#(newToken)","app_version":"1.1"}"#,
                                  signer: device.signing)
        #expect(ok.status == .ok)
        #expect(try ok.decode(AccountsResponses.DeviceSummary.self).appVersion == "1.1")
        let hijack = try await f.send(.patch, "/v1/devices/\(device.id)", json: #"{"apns_token":"\#(newToken)"}"#, signer: other.signing)
        #expect(hijack.status == .forbidden)
        #expect(try await f.authorization(of: device).apnsToken == newToken)
    }

    @Test func aDeletedDeviceIsInactiveForTheRelay() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        #expect(try await f.send(.delete, "/v1/devices/\(device.id)", signer: device.signing).status == .ok)
        let auth = try await f.authorization(of: device)
        #expect(!auth.active)
        #expect(auth.apnsToken == nil)
    }

    @Test func sessionsAreListedAndARevokedSessionIsRefused() async throws {
        let f = try await AccountsFixture.start()
        let device = try AccountsFixture.Device.make()
        let session = try await f.registeredSession(device)
        let list = try await f.send(.get, "/v1/devices/\(device.id)/sessions", signer: device.signing,
                                    headers: ["Mailwake-Session": session])
        #expect(list.status == .ok)
        #expect(try list.decode(AccountsResponses.Sessions.self).sessions.map(\.sessionID) == [session])
        #expect(try await f.send(.delete, "/v1/devices/\(device.id)/sessions/\(session)", signer: device.signing).status == .noContent)
        let after = try await f.send(.get, "/v1/devices/\(device.id)/entitlements", signer: device.signing,
                                     headers: ["Mailwake-Session": session])
        #expect(after.status == .unauthorized)
    }
}
