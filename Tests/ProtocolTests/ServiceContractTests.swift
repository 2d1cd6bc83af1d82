import Foundation
import MailwakeProtocol
import Testing

@Suite("Protocol: the contracts between the services (delivery status, reasons, device authorization)")
struct ServiceContractTests {
    @Test func aDeliveryStatusReportReadsBackWhatTheRelayWrites() throws {
        let report = DeliveryStatusReport(status: .displayed, attempts: 2, apnsStatus: 200, apnsReason: .pushToStartRefusedAlerted,
                                          updatedAt: 1_764_400_010, acceptedAt: 1_764_400_000, sentAt: 1_764_400_001,
                                          displayedAt: 1_764_400_003)
        #expect(try DeliveryStatusReport.decode(report.jsonBytes) == report)
    }

    @Test func theReportWritesNullsForAbsentAPNsFieldsAndLeavesOutTimesThatDidNotHappen() throws {
        let report = DeliveryStatusReport(status: .queued, attempts: 0, apnsStatus: nil, apnsReason: nil, updatedAt: 5, acceptedAt: 4,
                                          sentAt: nil, displayedAt: nil)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.jsonBytes)) as? [String: Any])
        #expect(Set(object.keys) == ["status", "attempts", "apns_status", "apns_reason", "updated_at", "accepted_at"])
        #expect(object["apns_status"] is NSNull && object["apns_reason"] is NSNull)
        #expect(object["status"] as? String == "queued")
    }

    @Test func aStatusFromANewerRelayIsKeptAsTextAndIsNoKnownStatus() throws {
        let report = try DeliveryStatusReport.decode(Array((#"{"status":"teleported","attempts":1,"apns_status":null,"# +
                                                            #""apns_reason":null,"updated_at":1,"extra":true}"#).utf8))
        #expect(report.status == nil)
        #expect(report.statusText == "teleported")
        #expect(report.acceptedAt == 0 && report.sentAt == nil)
    }

    @Test func aReportWithoutStatusOrAttemptsIsRefused() {
        #expect(throws: (any Error).self) { try DeliveryStatusReport.decode(Array(#"{"attempts":1}"#.utf8)) }
        #expect(throws: (any Error).self) { try DeliveryStatusReport.decode(Array(#"{"status":"sent"}"#.utf8)) }
        #expect(throws: (any Error).self) { try DeliveryStatusReport.decode(Array("not json".utf8)) }
    }

    @Test func onlyFinalStatusesAreFinalAndOnlySentOrDisplayedReachedAPNs() {
        #expect(DeliveryStatus.allCases.filter(\.isFinal) == [.sent, .displayed, .failed, .expired])
        #expect(DeliveryStatus.allCases.filter(\.reachedAPNs) == [.sent, .displayed])
    }

    @Test func transportReasonsAreSpelledWithTheClientsCodeAndOnlyRefusedOrClosedStreamsNeverReachedAPNs() {
        #expect(DeliveryReason.transport("stream_refused").rawValue == "transport_stream_refused")
        #expect(DeliveryReason.transport("stream_refused").neverReachedAPNs)
        #expect(DeliveryReason.transport("connection_closed").neverReachedAPNs)
        #expect(!DeliveryReason.transport("timed_out").neverReachedAPNs)
        #expect(!DeliveryReason.tooManyRequests.neverReachedAPNs)
    }

    @Test func aDeviceAuthorizationReadsBackWhatAccountsWrites() throws {
        let authorization = DeviceAuthorization(deviceID: "H9jJ3vBOtk5Mi74MRXYOwQ", active: true, entitled: true,
                                                entitledUntil: 1_800_000_000,
                                                apnsToken: "ab12", apnsEnvironment: .sandbox, bundleID: "net.mailwake.app",
                                                pushToStartToken: nil, signingKey: "BPk", agreementKey: "BAg")
        #expect(try JSONDecoder().decode(DeviceAuthorization.self, from: Data(authorization.jsonBytes)) == authorization)
        #expect(authorization.mayReceivePush)
    }

    @Test func anUnknownPushEnvironmentIsReadAsProductionAndMissingKeysAsEmpty() throws {
        let json = #"{"device_id":"d","active":true,"entitled":false,"apns_token":null,"apns_environment":"staging","bundle_id":"b"}"#
        let authorization = try JSONDecoder().decode(DeviceAuthorization.self, from: Data(json.utf8))
        #expect(authorization.apnsEnvironment == .production)
        #expect(authorization.signingKey.isEmpty && authorization.agreementKey.isEmpty)
        #expect(!authorization.mayReceivePush)
    }

    @Test func anUnknownDeviceMayReceiveNothing() {
        let unknown = DeviceAuthorization.unknown(deviceID: "d")
        #expect(!unknown.active && !unknown.entitled && !unknown.mayReceivePush && unknown.apnsToken == nil)
    }
}
