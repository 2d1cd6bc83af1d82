import Foundation
import MailwakeCrypto
import MailwakeDeviceKit
import MailwakeProtocol
@testable import OutpostService
import StackSupport
import TestSupport
import Testing

/// `POST /v1/management/redeem` looks the invitation up before it verifies
/// the request signature (which records a nonce): a stranger with a key of
/// its own and no real token makes the outpost write nothing at all.
@Suite("Outpost: redeem writes nothing for an unknown token", .serialized, .awaitedCleanup)
struct RedeemLookupTests {
    private static func rows(_ h: OutpostAPIHarness) async throws -> [Int64] {
        var counts: [Int64] = []
        for table in ["request_nonces", "devices", "permissions", "admin_log"] {
            counts.append(try await h.store.database.queryValue("SELECT COUNT(*) FROM \(table)", as: Int64.self) ?? -1)
        }
        return counts
    }

    @Test func aSelfMadeKeyWithAnUnknownTokenLeavesTheDatabaseUntouched() async throws {
        let h = try await OutpostAPIHarness.start()
        var link = try await h.invite([.content])
        let before = try await Self.rows(h)
        link.token = try SecureRandom.bytes(32)
        let stranger = try SimulatedDevice()
        let response = try await h.session(stranger).redeem(link, agreement: stranger.agreement.publicKey)
        #expect(response.status == .unauthorized)
        #expect(response.problemCode == "bad_credential")
        #expect(try await Self.rows(h) == before, "request_nonces, devices, permissions, admin_log")

        // The control: a real token's redemption does record the request's nonce.
        let device = try SimulatedDevice()
        let real = try await h.invite([.content])
        #expect(try await h.session(device).redeem(real, agreement: device.agreement.publicKey).status == .ok)
        #expect(try await Self.rows(h)[0] == before[0] + 1)
    }
}
