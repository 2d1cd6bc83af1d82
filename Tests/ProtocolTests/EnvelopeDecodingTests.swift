import Foundation
import MailwakeProtocol
import TestSupport
import Testing

/// The direct envelope decoder keeps every refusal of the strict rules.
@Suite("Envelope decoding")
struct EnvelopeDecodingTests {
    let f: Fixtures
    let notification: Envelope
    let liveActivity: Envelope
    init() throws {
        f = try Fixtures()
        notification = try f.sealer.seal([1, 2, 3], to: f.deviceAgreement.publicKey, context: try f.context())
        liveActivity = try f.sealer.seal([4], to: f.deviceAgreement.publicKey, context: try f.context(kind: .liveActivity))
    }

    /// The envelope's JSON as an editable dictionary, re-serialized after `edit`.
    func edited(_ e: Envelope, _ edit: (inout [String: Any]) -> Void) throws -> [UInt8] {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(e.jsonBytes)) as? [String: Any])
        edit(&object)
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    func refusal(_ json: [UInt8]) -> String? {
        protocolErrorCode { _ = try Envelope.decode(json) }
    }

    func message(_ json: [UInt8]) -> String {
        do {
            _ = try Envelope.decode(json)
            return ""
        } catch {
            return error.message
        }
    }

    @Test func bothKindsRoundTrip() throws {
        #expect(try Envelope.decode(notification.jsonBytes) == notification)
        #expect(try Envelope.decode(liveActivity.jsonBytes) == liveActivity)
    }

    @Test func keyOrderAndWhitespaceDoNotMatter() throws {
        let reordered = try edited(notification) { _ in }
        #expect(try Envelope.decode(Array(" \n".utf8) + reordered + Array("\t ".utf8)) == notification)
    }

    @Test(arguments: ["v", "alg", "aud", "pairing_id", "event_id", "kind", "iat", "epk", "salt", "nonce", "ct", "sig"])
    func eachMissingFieldIsRefusedByName(field: String) throws {
        let json = try edited(notification) { $0[field] = nil }
        #expect(refusal(json) == "malformed")
        #expect(message(json).contains(field))
    }

    @Test(arguments: ["v", "alg", "iat", "epk", "sig"])
    func aNullFieldIsRefused(field: String) throws {
        #expect(refusal(try edited(notification) { $0[field] = NSNull() }) == "malformed")
    }

    @Test func wrongTypesAreRefused() throws {
        #expect(refusal(try edited(notification) { $0["v"] = "1" }) == "malformed")
        #expect(refusal(try edited(notification) { $0["iat"] = "1795000000" }) == "malformed")
        #expect(refusal(try edited(notification) { $0["aud"] = 7 }) == "malformed")
        #expect(refusal(try edited(notification) { $0["epk"] = [1, 2] }) == "malformed")
        #expect(refusal(Array("[]".utf8)) == "malformed")
        #expect(refusal(Array(#""envelope""#.utf8)) == "malformed")
    }

    @Test func unknownFieldsAreRefusedAtTheTopAndInTheActivity() throws {
        #expect(message(try edited(notification) { $0["extra"] = 1 }).contains("unknown field extra"))
        let nested = try edited(liveActivity) { object in
            var activity = object["activity"] as? [String: Any] ?? [:]
            activity["colour"] = "red"
            object["activity"] = activity
        }
        #expect(message(nested).contains("unknown field colour in activity"))
    }

    @Test func integersOutsideInt64AndNegativeTimesAreRefused() throws {
        let text = String(decoding: notification.jsonBytes, as: UTF8.self)
        let iat = "\"iat\":\(notification.context.iat)"
        #expect(refusal(Array(text.replacingOccurrences(of: iat, with: "\"iat\":9223372036854775808").utf8)) == "malformed")
        #expect(refusal(Array(text.replacingOccurrences(of: iat, with: "\"iat\":-1").utf8)) == "malformed")
        #expect(refusal(Array(text.replacingOccurrences(of: "\"v\":1", with: "\"v\":-0").utf8)) == "malformed", "v is 0, not 1")
        #expect(refusal(Array(text.replacingOccurrences(of: "\"v\":1", with: "\"v\":2").utf8)) == "malformed")
    }

    @Test func duplicateKeysAreRefusedEvenInLargeObjects() throws {
        let text = String(decoding: notification.jsonBytes, as: UTF8.self)
        #expect(refusal(Array(text.replacingOccurrences(of: "{\"v\":1", with: "{\"v\":1,\"v\":1").utf8)) == "malformed")
        // More members than the linear scan handles: the set takes over.
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(throws: ProtocolError.self) { try StrictJSON.validate(Array("{\(many),\"k3\":0}".utf8)) }
        #expect(throws: ProtocolError.self) { try StrictJSON.validate(Array("{\(many),\"k39\":0}".utf8)) }
        #expect(throws: Never.self) { try StrictJSON.validate(Array("{\(many),\"k40\":0}".utf8)) }
    }

    @Test func aNullActivityIsAbsent() throws {
        let json = try edited(notification) { $0["activity"] = NSNull() }
        #expect(try Envelope.decode(json) == notification)
        #expect(refusal(try edited(liveActivity) { $0["activity"] = NSNull() }) == "malformed", "live-activity needs its activity")
    }

    @Test func escapedStringsDecodeToTheirCharacters() throws {
        let text = String(decoding: notification.jsonBytes, as: UTF8.self)
        let escaped = text.replacingOccurrences(of: "\"kind\":\"notification\"", with: "\"kind\":\"notific\\u0061tion\"")
        #expect(try Envelope.decode(Array(escaped.utf8)) == notification)
    }

    @Test func anActivityObjectDecodesOnItsOwn() throws {
        let activity = try #require(liveActivity.context.activity)
        let json = #"{"id":"\#(activity.id)","event":"\#(activity.event.rawValue)","timestamp":\#(activity.timestamp),"# +
                   #""stale_date":\#(activity.staleDate),"dismissal_date":\#(activity.dismissalDate)}"#
        #expect(try ActivityInfo.decode(Array(json.utf8)) == activity)
        #expect(protocolErrorCode {
            _ = try ActivityInfo.decode(Array(#"{"id":"a b","event":"start","timestamp":1,"stale_date":0,"dismissal_date":0}"#.utf8))
        } == "malformed")
        #expect(protocolErrorCode {
            _ = try ActivityInfo.decode(Array(#"{"id":"a","event":"pause","timestamp":1,"stale_date":0,"dismissal_date":0}"#.utf8))
        } == "malformed")
    }
}
