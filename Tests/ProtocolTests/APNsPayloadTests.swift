import Foundation
import MailwakeCrypto
import MailwakeProtocol
import Testing

@Suite("APNs payload mapping (PROTOCOL §11)")
struct APNsPayloadTests {
    let f: Fixtures
    init() throws { f = try Fixtures() }

    func payload(_ envelope: Envelope) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(APNsPayload.build(for: envelope))) as! [String: Any]
    }

    @Test func aNotificationCarriesAGenericAlertAndTheEnvelopeUnderMW() throws {
        let envelope = try f.sealer.seal([1], to: f.deviceAgreement.publicKey, context: try f.context())
        let p = try payload(envelope)
        let aps = p["aps"] as! [String: Any]
        #expect((aps["alert"] as! [String: String]) == ["title": "New mail", "body": "Open to view"])
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(aps["sound"] as? String == "default")
        let mw = try JSONSerialization.data(withJSONObject: p["mw"]!)
        #expect(try Envelope.decode(Array(mw)) == envelope)
        #expect(APNsPayload.pushType(for: .notification) == "alert")
        #expect(APNsPayload.topic(for: .notification, bundleID: "net.mailwake.app") == "net.mailwake.app")
    }

    @Test func aLiveActivityStartCarriesAttributesAndContentState() throws {
        let activity = ActivityInfo(id: "act-9", event: .start, timestamp: 100, staleDate: 700, dismissalDate: 0)
        let envelope = try f.sealer.seal([1], to: f.deviceAgreement.publicKey,
                                         context: try f.context(kind: .liveActivity, activity: activity))
        let aps = try payload(envelope)["aps"] as! [String: Any]
        #expect(aps["event"] as? String == "start")
        #expect(aps["timestamp"] as? Int == 100)
        #expect(aps["stale-date"] as? Int == 700)
        #expect(aps["dismissal-date"] == nil)
        #expect(aps["attributes-type"] as? String == "MailwakeCodeAttributes")
        #expect(aps["alert"] != nil)
        #expect((aps["content-state"] as? [String: Any])?["mw"] != nil)
        #expect(APNsPayload.pushType(for: .liveActivity) == "liveactivity")
        #expect(APNsPayload.topic(for: .liveActivity, bundleID: "net.mailwake.app") == "net.mailwake.app.push-type.liveactivity")
    }

    @Test func aLiveActivityUpdateHasNoAttributesOrAlert() throws {
        let activity = ActivityInfo(id: "act-9", event: .end, timestamp: 100, staleDate: 0, dismissalDate: 900)
        let envelope = try f.sealer.seal([1], to: f.deviceAgreement.publicKey,
                                         context: try f.context(kind: .liveActivity, activity: activity))
        let aps = try payload(envelope)["aps"] as! [String: Any]
        #expect(aps["attributes"] == nil)
        #expect(aps["alert"] == nil)
        #expect(aps["dismissal-date"] as? Int == 900)
    }

    @Test func thePredictedSizeEqualsTheRealSize() throws {
        for kind in EnvelopeKind.allCases {
            let context = try f.context(kind: kind)
            for n in [0, 1, 2, 3, 100, 1000] {
                let envelope = try f.sealer.seal([UInt8](repeating: 65, count: n), to: f.deviceAgreement.publicKey, context: context)
                #expect(APNsPayload.size(context: context, plaintextBytes: n) == APNsPayload.build(for: envelope).count)
            }
        }
    }
}
