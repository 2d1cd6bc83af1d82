import MailwakeCrypto
import MailwakeProtocol
import Testing

@Suite("Notification plaintext padding to 512, 1024 or 2048 bytes (§6)")
struct NotificationPaddingTests {
    let f: Fixtures
    init() throws { f = try Fixtures() }

    func payloadSize(_ plaintext: [UInt8], _ context: EncryptionContext) throws -> Int {
        APNsPayload.build(for: try f.sealer.seal(plaintext, to: f.deviceAgreement.publicKey, context: context)).count
    }

    @Test func subjectsOfOneAndTwoHundredCharactersSealToTheSameLength() throws {
        let context = try f.context()
        let short = try f.notification(subject: "x").paddedPlaintext(for: context)
        let long = try f.notification(subject: String(repeating: "y", count: 200)).paddedPlaintext(for: context)
        #expect(short.count == 512 && long.count == 512)
        let a = try f.sealer.seal(short, to: f.deviceAgreement.publicKey, context: context)
        let b = try f.sealer.seal(long, to: f.deviceAgreement.publicKey, context: context)
        #expect(a.ciphertext.count == b.ciphertext.count)
    }

    @Test func everyPlaintextIsExactlyTheSmallestBucketAndItsPayloadFits() throws {
        for kind in EnvelopeKind.allCases {
            for events in [ActivityInfo.Event.start, .end] where kind == .liveActivity || events == .start {
                let context = try f.context(kind: kind, activity: ActivityInfo(id: "act-1", event: events, timestamp: 1_764_400_000,
                                                                               staleDate: 1_764_400_600, dismissalDate: 1_764_400_000))
                var previous = 0
                for length in [0, 1, 200, 330, 400, 900, 1500, 1900, 5000] {
                    let content = f.notification(subject: String(repeating: "s", count: length))
                    let padded = try content.paddedPlaintext(for: context)
                    let raw = content.jsonBytes.count
                    let expected = NotificationContent.paddingBuckets.first { $0 >= raw + 9 } ?? 2048
                    #expect(padded.count == expected, "subject \(length): raw \(raw) bytes padded to \(padded.count)")
                    #expect(padded.count >= previous)
                    previous = padded.count
                    #expect(try payloadSize(padded, context) <= APNsPayload.maxBytes, "\(kind) \(events): subject \(length)")
                    // The device reads the same notification (shortened only when the largest bucket needed it).
                    let opened = try NotificationContent.decode(padded)
                    if raw + 9 <= 2048 { #expect(opened == content) } else { #expect(opened.subject.hasSuffix("…")) }
                    let pad = try #require(String(decoding: padded, as: UTF8.self).split(separator: "\"pad\":\"").last)
                    #expect(pad.dropLast(2).allSatisfy { $0 == "0" } && pad.hasSuffix("\"}"))
                }
            }
        }
    }

    @Test func aPayloadLimitBelowTheLargestBucketPadsToASmallerOne() throws {
        let context = try f.context()
        let content = f.notification(subject: String(repeating: "z", count: 5000))
        // A limit where about 1,500 plaintext bytes fit: 2048 does not, so 1024 is the largest bucket.
        let limit = APNsPayload.size(context: context, plaintextBytes: 1500)
        let padded = try content.paddedPlaintext(for: context, limit: limit)
        #expect(padded.count == 1024)
        #expect(try payloadSize(padded, context) <= limit)
        // Not even 512 bytes fit: a clear error, never an unpadded plaintext.
        let tiny = APNsPayload.size(context: context, plaintextBytes: 400)
        #expect(protocolErrorCode { _ = try content.paddedPlaintext(for: context, limit: tiny) } == "too_large")
    }

    @Test func theDeviceIgnoresPadWhateverItHolds() throws {
        let base = #"{"mailbox":"a","folder":"b","from":{"name":"","address":""},"subject":"s","received_at":1"#
        let want = NotificationContent(mailbox: "a", folder: "b", from: .init(name: "", address: ""), subject: "s", receivedAt: 1)
        for tail in [#","pad":"000"}"#, #","pad":"not zeros"}"#, #","pad":7}"#, #","pad":{"x":[1]}}"#, "}"] {
            #expect(try NotificationContent.decode(Array((base + tail).utf8)) == want, "\(tail)")
        }
        // A non-bucket size with a pad opens too, and the strictness for other keys stays.
        #expect(try NotificationContent.decode(Array((base + #","pad":""# + String(repeating: "0", count: 77) + #""}"#).utf8)) == want)
        #expect(protocolErrorCode { _ = try NotificationContent.decode(Array((base + #","padding":"0"}"#).utf8)) } == "malformed")
    }

    @Test func padRefusesWhatIsNotAnObjectOrTooLarge() {
        #expect(protocolErrorCode { _ = try NotificationContent.pad(Array("[1]".utf8)) } == "malformed")
        #expect(protocolErrorCode { _ = try NotificationContent.pad(Array(("{\"a\":\"" + String(repeating: "x",
                                                                                                count: 2040) + "\"}")
                                                                                                    .utf8)) } == "too_large")
        #expect((try? NotificationContent.pad(Array("{}".utf8)))?.count == 512)
    }
}
