import Foundation
@testable import MailwakeProtocol
import TestSupport
import Testing

/// The envelope scanner reads plain envelope documents exactly as the general decoder does, and declines the rest.
@Suite("Envelope scanner")
struct EnvelopeScannerTests {
    let f: Fixtures
    let notification: Envelope
    init() throws {
        f = try Fixtures()
        notification = try f.sealer.seal(Array("a plain notification".utf8), to: f.deviceAgreement.publicKey, context: try f.context())
    }

    /// What the general decoder makes of `json`: the envelope, or its refusal's code and message.
    func general(_ json: [UInt8]) -> Result<Envelope, ProtocolError> {
        Result { () throws(ProtocolError) in try Envelope.decodeGenerally(json) }
    }

    @Test func anOutpostsNotificationIsReadByTheScannerAsCanonical() throws {
        let scanned = try #require(EnvelopeScanner.scanned(notification.jsonBytes))
        #expect(scanned.envelope == notification)
        #expect(scanned.canonical)
    }

    @Test func theAPNsPayloadFromACanonicalDocumentIsTheOneWrittenAgain() throws {
        #expect(APNsPayload.build(for: notification, canonicalJSON: notification.jsonBytes) == APNsPayload.build(for: notification))
    }

    @Test(arguments: [
        (#"{"v":1,"#, #"{ "v":1,"#),  // whitespace
        (#"{"v":1,"#, #"{"v":1,"activity":null,"#),  // a null activity
    ])
    func aDocumentOtherThanTheCanonicalFormIsNotCalledCanonical(replacing: String, with: String) throws {
        let text = String(decoding: notification.jsonBytes, as: UTF8.self).replacingOccurrences(of: replacing, with: with)
        let json = Array(text.utf8)
        #expect(json != notification.jsonBytes)
        let decoded = try Envelope.decodeNotingForm(json)
        #expect(decoded.envelope == notification)
        #expect(!decoded.canonical)
    }

    @Test func aMinusZeroIatIsReadAsZeroButIsNotCanonical() throws {
        let atZero = try f.sealer.seal([5], to: f.deviceAgreement.publicKey, context: try f.context(iat: 0))
        let text = String(decoding: atZero.jsonBytes, as: UTF8.self).replacingOccurrences(of: #""iat":0,"#, with: #""iat":-0,"#)
        let decoded = try Envelope.decodeNotingForm(Array(text.utf8))
        #expect(decoded.envelope == atZero)
        #expect(!decoded.canonical)
    }

    @Test func keysInAnotherOrderAreNotCanonical() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(notification.jsonBytes)) as? [String: Any])
        object["activity"] = nil
        let sorted = Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        let scanned = try #require(EnvelopeScanner.scanned(sorted))
        #expect(scanned.envelope == notification)
        #expect(!scanned.canonical)
    }

    @Test func whitespaceKeyOrderAndANullActivityAreReadAsTheGeneralDecoderReadsThem() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(notification.jsonBytes)) as? [String: Any])
        object["activity"] = NSNull()
        let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let pretty = Array(try JSONSerialization.data(withJSONObject: object, options: options))
        #expect(EnvelopeScanner.scanned(pretty)?.envelope == notification)
        #expect(try Envelope.decodeGenerally(pretty) == notification)
    }

    @Test func aLiveActivityIsLeftToTheGeneralDecoder() throws {
        let live = try f.sealer.seal([4], to: f.deviceAgreement.publicKey, context: try f.context(kind: .liveActivity))
        #expect(EnvelopeScanner.scanned(live.jsonBytes)?.envelope == nil)
        #expect(try Envelope.decode(live.jsonBytes) == live)
    }

    @Test(arguments: [
        #"https:\/\/relay.example"#,  // an escape the general decoder reads
        "relay.exämple",  // UTF-8 beyond ASCII
    ])
    func anAudienceWithAnEscapeOrNonASCIIIsLeftToTheGeneralDecoder(aud: String) throws {
        let text = String(decoding: notification.jsonBytes, as: UTF8.self)
            .replacingOccurrences(of: #""aud":"\#(notification.context.aud)""#, with: #""aud":"\#(aud)""#)
        let json = Array(text.utf8)
        #expect(EnvelopeScanner.scanned(json)?.envelope == nil)
        #expect(String(describing: Result { () throws(ProtocolError) in try Envelope.decode(json) }) ==
            String(describing: general(json)))
    }

    @Test func everyDamagedDocumentDecodesAsTheGeneralDecoderDecodesIt() throws {
        // Byte flips, deletions and insertions of the characters that change a JSON document's meaning, at every
        // place of a real envelope: the scanner may decline any of them, but what it reads must be what the general
        // decoder reads, and `decode` must answer as the general decoder does, refusal wording included.
        let original = notification.jsonBytes
        let inserts = Array(#" "\,:{}[]0-.eEnul"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xFF]
        var rng = SystemRandomNumberGenerator()
        var scanned = 0, declined = 0
        for round in 0..<6_000 {
            var json = original
            let at = round < original.count ? round : Int.random(in: 0..<original.count, using: &rng)
            switch round % 3 {
            case 0: json[at] ^= UInt8(1) << UInt8(round / 3 % 8)
            case 1: json.remove(at: at)
            default: json.insert(inserts[round % inserts.count], at: at)
            }
            let expected = general(json)
            if let read = EnvelopeScanner.scanned(json) {
                scanned += 1
                #expect(expected == .success(read.envelope), "round \(round)")
                // Canonical means exactly the bytes the envelope writes: the relay copies them into the APNs payload.
                #expect(read.canonical == (json == read.envelope.jsonBytes), "round \(round)")
            } else {
                declined += 1
            }
            let decoded = Result { () throws(ProtocolError) in try Envelope.decode(json) }
            #expect(String(describing: decoded) == String(describing: expected), "round \(round)")
        }
        // Some damage leaves a valid envelope (a space between tokens, a flipped bit in a base64url character that
        // decodes to other bytes), most does not.
        #expect(scanned > 0 && declined > 0)
    }

    @Test func duplicateAndUnknownKeysAreDeclined() throws {
        let text = String(decoding: notification.jsonBytes, as: UTF8.self)
        for edited in [text.replacingOccurrences(of: #"{"v":1,"#, with: #"{"v":1,"v":1,"#),
                       text.replacingOccurrences(of: #"{"v":1,"#, with: #"{"v":1,"w":1,"#),
                       text.replacingOccurrences(of: #"{"v":1,"#, with: #"{"v":1.0,"#),
                       text.replacingOccurrences(of: #"{"v":1,"#, with: #"{"v":01,"#)] {
            #expect(EnvelopeScanner.scanned(Array(edited.utf8))?.envelope == nil, "\(edited.prefix(24))")
            #expect(throws: ProtocolError.self) { try Envelope.decode(Array(edited.utf8)) }
        }
    }
}
