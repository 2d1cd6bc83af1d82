/// The APNs payload the relay sends for an envelope (PROTOCOL.md §11).
///
/// Outposts use the same builder to keep a notification within the 4096-byte
/// APNs limit (§6), so the size both sides compute is the same.
public enum APNsPayload {
    /// Apple's limit for alert and Live Activity payloads.
    public static let maxBytes = 4096

    /// Settings for Live Activity payloads.
    public struct LiveActivitySettings: Sendable, Hashable {
        /// The `attributes-type` of a push-to-start (the App's ActivityAttributes type name).
        public var attributesType: String

        /// - Parameter attributesType: default `MailwakeCodeAttributes`.
        public init(attributesType: String = "MailwakeCodeAttributes") {
            self.attributesType = attributesType
        }
    }

    /// The `apns-push-type` header for `kind`.
    public static func pushType(for kind: EnvelopeKind) -> String {
        kind == .notification ? "alert" : "liveactivity"
    }

    /// The `apns-topic` for `kind` and the App's bundle id.
    public static func topic(for kind: EnvelopeKind, bundleID: String) -> String {
        kind == .notification ? bundleID : bundleID + ".push-type.liveactivity"
    }

    /// Builds the payload bytes for `envelope`.
    /// - Parameters:
    ///   - canonicalJSON: `envelope.jsonBytes` when the caller has them at hand (a document `Envelope.decodeNotingForm`
    ///     found canonical): copied instead of written again.
    public static func build(for envelope: Envelope, liveActivity: LiveActivitySettings = .init(),
                             canonicalJSON: [UInt8]? = nil) -> [UInt8] {
        var w = JSONWriter(capacity: 600 + envelope.ciphertext.count * 4 / 3)
        w.beginObject()
        switch envelope.context.kind {
        case .notification:
            w.beginObject("aps")
            writeGenericAlert(&w)
            w.int("mutable-content", 1)
            w.string("sound", "default")
            w.endObject()
            if let canonicalJSON {
                assert(canonicalJSON == envelope.jsonBytes, "canonicalJSON is not the envelope's canonical form")
                w.raw("mw", canonicalJSON)
            } else {
                envelope.write(to: &w, key: "mw")
            }
        case .liveActivity:
            let a = envelope.context.activity ?? ActivityInfo(id: "", event: .update, timestamp: envelope.context.iat)
            w.beginObject("aps")
            w.uint("timestamp", a.timestamp)
            w.string("event", a.event.rawValue)
            w.beginObject("content-state")
            envelope.write(to: &w, key: "mw")
            w.endObject()
            if a.staleDate != 0 { w.uint("stale-date", a.staleDate) }
            if a.dismissalDate != 0 { w.uint("dismissal-date", a.dismissalDate) }
            if a.event == .start {
                writeGenericAlert(&w)
                w.string("attributes-type", liveActivity.attributesType)
                w.beginObject("attributes")
                w.string("activity_id", a.id)
                w.endObject()
            }
            w.endObject()
        }
        w.endObject()
        return w.bytes
    }

    /// A time-sensitive alert carrying `envelope` under `"mw"`, whatever its kind: what the relay sends instead of a
    /// Live Activity `start` that APNs refused for the push-to-start token (`TooManyRequests`, Apple's start budget),
    /// so the code still reaches the lock screen (docs/protocol.md, "Live Activities within Apple's budget").
    public static func timeSensitiveAlert(for envelope: Envelope) -> [UInt8] {
        var w = JSONWriter(capacity: 600 + envelope.ciphertext.count * 4 / 3)
        w.beginObject()
        w.beginObject("aps")
        writeGenericAlert(&w)
        w.string("interruption-level", "time-sensitive")
        w.int("mutable-content", 1)
        w.string("sound", "default")
        w.endObject()
        envelope.write(to: &w, key: "mw")
        w.endObject()
        return w.bytes
    }

    /// `apns-priority` for an envelope: 10 (immediate) for notifications and a Live Activity's `start`; 5 for its
    /// updates and `end`, which Apple delivers within its budget without waking the device at once.
    public static func priority(kind: EnvelopeKind, activityEvent: ActivityInfo.Event?) -> Int {
        kind == .liveActivity && activityEvent != .start ? 5 : 10
    }

    private static func writeGenericAlert(_ w: inout JSONWriter) {
        w.beginObject("alert")
        w.string("title", "New mail")
        w.string("body", "Open to view")
        w.endObject()
    }

    /// The payload size for an envelope whose ciphertext would be
    /// `plaintextBytes + 16` long, without sealing anything.
    public static func size(context: EncryptionContext, plaintextBytes: Int, liveActivity: LiveActivitySettings = .init()) -> Int {
        let placeholder = Envelope(
            context: context,
            ephemeralPublicKey: [UInt8](repeating: 0, count: 65),
            salt: [UInt8](repeating: 0, count: 32),
            nonce: [UInt8](repeating: 0, count: 12),
            ciphertext: [UInt8](repeating: 0, count: plaintextBytes + AESGCMSizes.tag),
            signature: [UInt8](repeating: 0, count: 64))
        return build(for: placeholder, liveActivity: liveActivity).count
    }
}

enum AESGCMSizes {
    static let tag = 16
}
