import MailwakeProtocol

/// The checks APNs makes on `POST /3/device/<token>`, in the order the
/// simulator applies them (docs/apns-simulator.md): the first failure is
/// the answer.
///
/// 1. method POST (MethodNotAllowed), 2. path `/3/device/<token>` (BadPath;
/// MissingDeviceToken when the token is empty), 3. token 64…200 hex digits
/// (BadDeviceToken), 4. provider token (MissingProviderToken,
/// InvalidProviderToken, ExpiredProviderToken), 5. `apns-topic` present
/// (MissingTopic) and one of the App's topics (TopicDisallowed), 6.
/// `apns-push-type` known (InvalidPushType; when absent, `alert` as Apple
/// assumes for iOS, unless `requirePushType`) and matching the topic
/// (TopicDisallowed), 7. `apns-priority` 1, 5 or 10 (BadPriority), 8.
/// `apns-id` a UUID (BadMessageId), 9. `apns-expiration` an integer
/// (BadExpirationDate), 10. `apns-collapse-id` at most 64 bytes
/// (BadCollapseId), 11. payload not empty (PayloadEmpty), at most 4096 bytes
/// (5120 for VoIP; PayloadTooLarge), a JSON object (BadPayload, the
/// simulator's own).
public struct RequestValidator: Sendable {
    /// The App's bundle id: the topic of alert pushes.
    public let bundleID: String
    public let verifier: ProviderTokenVerifier
    private let allowedTopics: Set<String>
    /// Refuse a push without `apns-push-type` (Apple assumes `alert` on iOS).
    public let requirePushType: Bool

    /// Apple's push types and the suffix each adds to the bundle id in `apns-topic`.
    public static let topicSuffixes: [String: String] = [
        "alert": "", "background": "", "mdm": "", "location": ".location-query", "voip": ".voip",
        "complication": ".complication", "fileprovider": ".pushkit.fileprovider", "liveactivity": ".push-type.liveactivity",
        "pushtotalk": ".voip-ptt", "widgets": ".push-type.widgets", "controls": ".push-type.controls",
    ]
    /// The payload limit of every push type but VoIP.
    public static let maxPayloadBytes = 4096
    /// The payload limit of VoIP pushes.
    public static let maxVoIPPayloadBytes = 5120

    public init(bundleID: String, verifier: ProviderTokenVerifier, requirePushType: Bool = true) {
        self.bundleID = bundleID
        self.verifier = verifier
        self.requirePushType = requirePushType
        allowedTopics = Set(Self.topicSuffixes.values.map { bundleID + $0 })
    }

    /// Inspects `request` at `now` (seconds since 1970).
    public func inspect(_ request: SimulatorRequest, now: Int64) -> RequestInspection {
        var result = RequestInspection()
        func refuse(_ reason: APNsReason) -> RequestInspection {
            result.refusal = reason
            return result
        }
        guard request.method == "POST" else { return refuse(.methodNotAllowed) }
        let prefix = "/3/device/"
        guard request.path.hasPrefix(prefix) else { return refuse(.badPath) }
        let token = request.path.utf8.dropFirst(prefix.utf8.count)
        guard !token.contains(UInt8(ascii: "/")), !token.contains(UInt8(ascii: "?")) else { return refuse(.badPath) }
        guard !token.isEmpty else { return refuse(.missingDeviceToken) }
        result.deviceToken = String(decoding: token, as: UTF8.self)
        guard Self.isDeviceToken(token) else { return refuse(.badDeviceToken) }

        switch verifier.check(authorization: request.authorization, now: now) {
        case .failure(let reason): return refuse(reason)
        case .success(let providerToken): result.providerToken = providerToken
        }

        guard let topic = request.topic, !topic.isEmpty else { return refuse(.missingTopic) }
        guard allowedTopics.contains(topic) else { return refuse(.topicDisallowed) }
        guard let pushType = request.pushType ?? (requirePushType ? nil : "alert"), let suffix = Self.topicSuffixes[pushType] else {
            return refuse(.invalidPushType)
        }
        guard topic.utf8.count == bundleID.utf8.count + suffix.utf8.count, topic.hasSuffix(suffix) else { return refuse(.topicDisallowed) }
        if let priority = request.priority, priority != "10", priority != "5", priority != "1" { return refuse(.badPriority) }
        if let id = request.apnsID, !Self.isUUID(id) { return refuse(.badMessageId) }
        if let expiration = request.expiration, !Self.isUnsignedInteger(expiration) { return refuse(.badExpirationDate) }
        if let collapseID = request.collapseID, collapseID.utf8.count > 64 { return refuse(.badCollapseId) }

        guard request.bodyLength > 0 else { return refuse(.payloadEmpty) }
        let limit = pushType == "voip" ? Self.maxVoIPPayloadBytes : Self.maxPayloadBytes
        guard request.bodyLength <= limit, request.body.count == request.bodyLength else { return refuse(.payloadTooLarge) }
        guard Self.isJSONObject(request.body, limit: limit) else { return refuse(.badPayload) }
        return result
    }

    /// 64 to 200 hexadecimal digits (APNs tokens are 32 bytes today; Apple
    /// says not to rely on the length).
    static func isDeviceToken(_ token: some Collection<UInt8>) -> Bool {
        (64...200).contains(token.count) && token.allSatisfy(isHexDigit)
    }

    /// The canonical 8-4-4-4-12 hexadecimal form, either case.
    public static func isUUID(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count == 36 else { return false }
        for (i, b) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if b != UInt8(ascii: "-") { return false }
            } else if !isHexDigit(b) {
                return false
            }
        }
        return true
    }

    static func isUnsignedInteger(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 19 && value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    static func isJSONObject(_ body: [UInt8], limit: Int) -> Bool {
        guard let first = body.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }), first == UInt8(ascii: "{") else {
            return false
        }
        do {
            try StrictJSON.validate(body, limits: .init(maxBytes: limit, maxDepth: 64, allowFractions: true))
            return true
        } catch {
            return false
        }
    }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f"))
            || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "F"))
    }
}
