@testable import AccountsService
import MailwakeCrypto
import MailwakeProtocol
import Testing

/// The relay's diagnostics batches, read without `Decodable`: each refusal a strict `Decodable` type gave is kept.
@Suite("Accounts: diagnostics batches read strictly")
struct DiagnosticBatchTests {
    static let device = KeyIdentity.id(of: try! P256.Signing.PrivateKey().publicKey)
    static let pairing = try! PairingID.generate()
    static let event = try! EventID.generate()

    /// One record's members, `replacing` and `adding` applied (a nil value drops the member).
    static func record(replacing: [String: String?] = [:], adding extra: String = "") -> String {
        var members: [(String, String)] = [("device_id", "\"\(device)\""), ("pairing_id", "\"\(pairing)\""), ("event_id", "\"\(event)\""),
                                           ("status", "\"failed\""), ("apns_reason", "\"BadDeviceToken\""), ("occurred_at", "1700000000")]
        members = members.compactMap { key, value in
            guard let replaced = replacing[key] else { return (key, value) }
            return replaced.map { (key, $0) }
        }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + extra + "}"
    }

    static func batch(_ json: String) throws(ProtocolError) -> DiagnosticBatch {
        try DiagnosticBatch(StrictJSON.parse(Array(json.utf8), limits: .init(maxBytes: 256 * 1024)))
    }

    static func refusal(_ json: String) -> String? {
        do {
            _ = try batch(json)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func everyFieldOfAWellFormedRecordIsRead() throws {
        let read = try Self.batch(#"{"records":["# + Self.record() + "," + Self.record(replacing: ["apns_reason": "null"]) + "]}")
        #expect(read.records.count == 2)
        let first = try #require(read.records.first)
        #expect(first.deviceID == Self.device && first.pairingID == Self.pairing && first.eventID == Self.event)
        #expect(first.status == "failed" && first.apnsReason == "BadDeviceToken" && first.occurredAt == 1_700_000_000)
        #expect(read.records[1].apnsReason == nil)
        #expect(try Self.batch(#"{"records":["# + Self.record(replacing: ["apns_reason": nil]) + "]}").records[0].apnsReason == nil)
        #expect(try Self.batch(#"{"records":[]}"#).records.isEmpty)
    }

    @Test func anUnknownFieldInARecordOrTheBatchIsRefusedByName() {
        #expect(Self.refusal(#"{"records":["# + Self.record(adding: #","payload":"x""#) + "]}")
                == "unknown field payload in diagnostics record")
        #expect(Self.refusal(#"{"records":[],"extra":1}"#) == "unknown field extra in diagnostics batch")
    }

    @Test func aMissingNullOrMistypedFieldIsRefusedWithItsPath() {
        #expect(Self.refusal(#"{"records":["# + Self.record(replacing: ["status": nil]) + "]}") == "missing field records[0].status")
        #expect(Self.refusal(#"{"records":["# + Self.record(replacing: ["event_id": "null"]) + "]}") == "null at records[0].event_id")
        #expect(Self.refusal(#"{"records":["# + Self.record(replacing: ["occurred_at": "\"1\""]) + "]}")
                == "wrong type at records[0].occurred_at")
        #expect(Self.refusal(#"{"records":["# + Self.record(replacing: ["occurred_at": "1.5"]) + "]}")?
                    .hasSuffix(": only integers are allowed") == true)
        #expect(Self.refusal(#"{"records":["# + Self.record(replacing: ["apns_reason": "7"]) + "]}")
                == "wrong type at records[0].apns_reason")
        #expect(Self.refusal(#"{"records":{}}"#) == "wrong type at records")
        #expect(Self.refusal(#"{"records":[1]}"#) == "wrong type at records[0]")
        #expect(Self.refusal(#"{}"#) == "missing field records")
        #expect(Self.refusal(#"[]"#) == "wrong type at the top level")
    }

    @Test func malformedIdentifiersAndOversizeStatusOrReasonAreRefused() {
        let malformed = "a diagnostics record has a malformed field"
        for replacement in [["device_id": "\"short\""], ["pairing_id": "\"p\""], ["event_id": "\"\""], ["status": "\"\""],
                            ["status": "\"" + String(repeating: "s", count: 33) + "\""],
                            ["apns_reason": "\"" + String(repeating: "r", count: 65) + "\""],
                            ["status": #""fail\u0000ed""#], ["apns_reason": #""Bad\u0000Token""#]] {
            #expect(Self.refusal(#"{"records":["# + Self.record(replacing: replacement) + "]}") == malformed)
        }
        #expect(Self.refusal(#"{"records":["# + Self.record(replacing: ["status": "\"" + String(repeating: "s", count: 32) + "\""]) + "]}")
                == nil)
    }

    @Test func aBatchOfMoreThanFiveHundredRecordsIsTooLarge() throws {
        let records = (0..<DiagnosticBatch.maxRecords).map { _ in Self.record() }
        #expect(try Self.batch(#"{"records":["# + records.joined(separator: ",") + "]}").records.count == DiagnosticBatch.maxRecords)
        do {
            _ = try Self.batch(#"{"records":["# + (records + [Self.record()]).joined(separator: ",") + "]}")
            Issue.record("501 records were accepted")
        } catch {
            #expect(error.code == .tooLarge)
        }
    }

    @Test func aDuplicateKeyIsRefusedBeforeAnyFieldIsRead() {
        // The parser refuses it: the record's reader never sees which of the two values would have won.
        let refusal = Self.refusal(#"{"records":["# + Self.record(adding: #","status":"delivered""#) + "]}")
        #expect(refusal?.hasPrefix("invalid JSON at byte ") == true && refusal?.hasSuffix(": duplicate key") == true)
    }
}
