import MailwakeCrypto
import MailwakeProtocol
import Testing

@Suite("Notification plaintext and the 4096-byte APNs budget")
struct NotificationFittingTests {
    let f: Fixtures
    init() throws { f = try Fixtures() }

    func payloadSize(_ n: NotificationContent, _ context: EncryptionContext) throws -> Int {
        let envelope = try f.sealer.seal(n.jsonBytes, to: f.deviceAgreement.publicKey, context: context)
        return APNsPayload.build(for: envelope).count
    }

    @Test func aShortNotificationIsUnchanged() throws {
        let context = try f.context()
        #expect(try f.notification().fitted(for: context) == f.notification())
    }

    @Test func aLongSubjectIsShortenedToFitExactly() throws {
        let context = try f.context()
        let n = f.notification(subject: String(repeating: "Long subject words ", count: 300))
        let fitted = try n.fitted(for: context)
        #expect(fitted.subject.hasSuffix("…"))
        #expect(fitted.from == n.from, "the sender name is kept when shortening the subject suffices")
        #expect(try payloadSize(fitted, context) <= APNsPayload.maxBytes)
        // One more character would not have fitted.
        var longer = fitted
        longer.subject = String(n.subject.prefix(fitted.subject.count)) + "…"
        #expect(try payloadSize(longer, context) > APNsPayload.maxBytes)
    }

    @Test func shorteningRespectsCharacterBoundaries() throws {
        let context = try f.context()
        let subject = String(repeating: "季度报告👨‍👩‍👧‍👦é", count: 400)
        let fitted = try f.notification(subject: subject).fitted(for: context)
        let kept = String(fitted.subject.dropLast())
        #expect(subject.hasPrefix(kept))
        #expect(kept.count + 1 == fitted.subject.count)
        #expect(try payloadSize(fitted, context) <= APNsPayload.maxBytes)
    }

    @Test func theSenderNameIsShortenedSecond() throws {
        let context = try f.context()
        let n = f.notification(subject: String(repeating: "s", count: 3000), name: String(repeating: "Name ", count: 800))
        let fitted = try n.fitted(for: context)
        #expect(fitted.subject == "…")
        #expect(fitted.from.name.hasSuffix("…"))
        #expect(try payloadSize(fitted, context) <= APNsPayload.maxBytes)
    }

    @Test func controlCharactersAreCountedWithTheirEscapes() throws {
        let context = try f.context()
        let fitted = try f.notification(subject: String(repeating: "\u{01}\"", count: 2000)).fitted(for: context)
        #expect(try payloadSize(fitted, context) <= APNsPayload.maxBytes)
    }

    @Test func anOversizeAddressCannotBeFitted() throws {
        var n = f.notification()
        n.from.address = String(repeating: "a", count: 4000) + "@example.com"
        #expect(protocolErrorCode { _ = try n.fitted(for: try f.context()) } == "too_large")
    }

    @Test func liveActivityStartPayloadsFitToo() throws {
        let context = try f.context(kind: .liveActivity)
        let fitted = try f.notification(subject: String(repeating: "x", count: 5000)).fitted(for: context)
        #expect(try payloadSize(fitted, context) <= APNsPayload.maxBytes)
    }

    @Test func plaintextDecodingIsStrict() {
        #expect(protocolErrorCode {
            _ = try NotificationContent.decode(Array(
                #"{"mailbox":"a","folder":"b","from":{"name":"","address":""},"subject":"","received_at":1,"x":1}"#.utf8))
        } == "malformed")
        #expect(protocolErrorCode {
            _ = try NotificationContent.decode(Array(
                #"{"mailbox":"a","folder":"b","from":{"name":"","address":"","y":2},"subject":"","received_at":1}"#.utf8))
        } == "malformed")
        #expect(protocolErrorCode {
            _ = try NotificationContent.decode(Array(
                #"{"mailbox":"a","folder":"b","from":{"name":"","address":""},"subject":"","received_at":1}"#.utf8))
        } == nil)
    }
}

@Suite("Plaintext budget arithmetic")
struct PlaintextBudgetTests {
    @Test func theBudgetIsTheLargestPlaintextThatFits() throws {
        let f = try Fixtures()
        for kind in EnvelopeKind.allCases {
            let context = try f.context(kind: kind)
            // A plaintext of exactly n bytes made of one long subject.
            var n = f.notification(subject: "")
            let baseCount = n.jsonBytes.count
            n.subject = String(repeating: "x", count: 5000)
            let fitted = try n.fitted(for: context)
            let budget = fitted.jsonBytes.count
            #expect(APNsPayload.size(context: context, plaintextBytes: budget) <= APNsPayload.maxBytes)
            // Three more bytes always cross a base64 boundary: they must not fit.
            #expect(APNsPayload.size(context: context, plaintextBytes: budget + 3) > APNsPayload.maxBytes)
            #expect(budget > baseCount)
        }
    }
}
