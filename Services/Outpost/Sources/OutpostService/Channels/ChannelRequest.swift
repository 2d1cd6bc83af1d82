import Foundation
import MailwakeCrypto
public import MailwakeHTTPTypes
public import MailwakeProtocol

/// The HTTP request a channel sends for a notification, in the exact format
/// its service expects.
public struct ChannelRequest: Sendable, Equatable {
    public var method: HTTPMethod
    public var url: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    /// Pushover's limits (characters).
    public static let pushoverMessageLimit = 1024
    public static let pushoverTitleLimit = 250

    /// The request for `content` on `channel`; `eventID` identifies the
    /// notification (the webhook id, stable across retries); `now` is the
    /// attempt's time (Unix seconds).
    public static func make(_ content: NotificationContent, eventID: String, channel: ChannelRecord, secrets: ChannelSecrets,
                            now: Int64) throws -> ChannelRequest {
        switch channel.kind {
        case .bark: try bark(content, channel: channel, secrets: secrets)
        case .pushover: try pushover(content, channel: channel, secrets: secrets)
        case .webhook: try webhook(content, eventID: eventID, channel: channel, secrets: secrets, now: now)
        }
    }

    /// The sender as people read it.
    static func sender(_ c: NotificationContent) -> String {
        c.from.name.isEmpty ? c.from.address : c.from.name
    }

    // MARK: Bark

    /// `POST {server}/push` with JSON: device_key, title, subtitle, body, group, level, url, copy;
    /// with push encryption, the same fields (but device_key) as `ciphertext` + `iv`.
    static func bark(_ c: NotificationContent, channel: ChannelRecord, secrets: ChannelSecrets) throws -> ChannelRequest {
        guard let deviceKey = secrets.deviceKey, !deviceKey.isEmpty else { throw ChannelError("the Bark channel has no device key") }
        var fields: [String: String] = [:]
        let who = sender(c)
        fields["title"] = who.isEmpty ? c.mailbox : who
        if !c.subject.isEmpty { fields["subtitle"] = c.subject }
        fields["body"] = c.code.map { "Code \($0)" } ?? (c.subject.isEmpty ? "New mail in \(c.mailbox)" : "\(c.mailbox) · \(c.folder)")
        fields["group"] = channel.options.group ?? c.mailbox
        fields["level"] = channel.options.level ?? (c.code != nil ? "timeSensitive" : "active")
        if let code = c.code { fields["copy"] = code }
        if let link = channel.options.link { fields["url"] = link }
        var payload: [String: String] = ["device_key": deviceKey]
        if let mode = channel.options.encryption {
            guard let key = secrets.encryptionKey,
                  key.utf8.count == 32 else { throw ChannelError("Bark encryption needs a 32-character key (AES-256)") }
            let plaintext = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
            let (ciphertext, iv) = try barkEncrypt(Array(plaintext), key: Array(key.utf8), mode: mode)
            payload["ciphertext"] = Data(ciphertext).base64EncodedString()
            payload["iv"] = iv
        } else {
            payload.merge(fields) { a, _ in a }
        }
        let body = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        return ChannelRequest(method: .post, url: trimmedBase(channel.url) + "/push",
                              headers: ["content-type": "application/json; charset=utf-8"], body: Array(body))
    }

    /// AES-256 as the Bark app decrypts it: the key and IV are the UTF-8 bytes of
    /// their text; CBC with PKCS#7 and a 16-character IV, or GCM with a
    /// 12-character IV and the tag after the ciphertext. A fresh IV each time.
    static func barkEncrypt(_ plaintext: [UInt8], key: [UInt8], mode: String) throws -> ([UInt8], String) {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        func randomIV(_ n: Int) throws -> String {
            let bytes = try SecureRandom.bytes(n)
            return String(decoding: bytes.map { alphabet[Int($0) % alphabet.count] }, as: UTF8.self)
        }
        switch mode {
        case "cbc":
            let iv = try randomIV(16)
            return (try AESCBC.encrypt(plaintext, key: key, iv: Array(iv.utf8)), iv)
        case "gcm":
            let iv = try randomIV(12)
            return (try AESGCM.seal(plaintext, using: SymmetricKey(bytes: key), nonce: Array(iv.utf8), authenticating: []), iv)
        default:
            throw ChannelError("Bark encryption must be gcm or cbc")
        }
    }

    // MARK: Pushover

    /// `POST {api}/1/messages.json`, form-encoded: token, user, title, message
    /// (HTML), timestamp, priority, url.
    static func pushover(_ c: NotificationContent, channel: ChannelRecord, secrets: ChannelSecrets) throws -> ChannelRequest {
        guard let token = secrets.appToken,
              let user = secrets.userKey else { throw ChannelError("the Pushover channel needs an app token and a user key") }
        let who = sender(c)
        var title = who.isEmpty ? c.mailbox : "\(who) (\(c.mailbox))"
        if title.count > pushoverTitleLimit { title = String(title.prefix(pushoverTitleLimit - 1)) + "…" }
        var lines: [String] = []
        if !c.subject.isEmpty { lines.append(htmlEscape(c.subject)) }
        if let code = c.code { lines.append("Code: <b>\(htmlEscape(code))</b>") }
        if lines.isEmpty { lines.append("New mail in \(htmlEscape(c.mailbox))") }
        var message = lines.joined(separator: "\n")
        if message.count > pushoverMessageLimit {
            // Keep the code line whole; shorten the subject.
            let tail = c.code.map { "\nCode: <b>\(htmlEscape($0))</b>" } ?? ""
            let room = pushoverMessageLimit - tail.count - 1
            message = String(htmlEscape(c.subject).prefix(max(0, room))).droppingPartialEntity() + "…" + tail
        }
        var form: [(String, String)] = [("token", token), ("user", user), ("title", title), ("message", message), ("html", "1"),
                                         ("timestamp", String(c.receivedAt)), ("priority", String(channel.options.priority ?? 0))]
        if let link = channel.options.link { form.append(("url", link)) }
        return ChannelRequest(method: .post, url: trimmedBase(channel.url) + "/1/messages.json",
                              headers: ["content-type": "application/x-www-form-urlencoded"], body: Array(formEncode(form).utf8))
    }

    // MARK: Webhook (Standard Webhooks)

    /// `POST {url}` with a JSON event and `webhook-id`, `webhook-timestamp`,
    /// `webhook-signature: v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`.
    static func webhook(_ c: NotificationContent, eventID: String, channel: ChannelRecord, secrets: ChannelSecrets,
                        now: Int64) throws -> ChannelRequest {
        guard let secret = secrets.webhookSecret,
              let key = webhookKey(secret) else { throw ChannelError("the webhook channel has no valid whsec_ secret") }
        var from: [String: String] = [:]
        if !c.from.name.isEmpty { from["name"] = c.from.name }
        if !c.from.address.isEmpty { from["address"] = c.from.address }
        var data: [String: Any] = ["mailbox": c.mailbox, "folder": c.folder, "received_at": c.receivedAt]
        if !from.isEmpty { data["from"] = from }
        if !c.subject.isEmpty { data["subject"] = c.subject }
        if let code = c.code { data["code"] = code }
        let event: [String: Any] = ["type": "mail.received",
                                    "timestamp": ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(now))),
                                    "data": data]
        let body = Array(try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys, .withoutEscapingSlashes]))
        let id = "msg_\(eventID)"
        let signature = webhookSignature(id: id, timestamp: now, body: body, key: key)
        return ChannelRequest(method: .post, url: channel.url,
                              headers: ["content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(now),
                                        "webhook-signature": "v1,\(signature)"],
                              body: body)
    }

    /// The key of a `whsec_<base64>` secret.
    public static func webhookKey(_ secret: String) -> [UInt8]? {
        guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))), key.count >= 16,
              key.count <= 64 else { return nil }
        return Array(key)
    }

    /// base64(HMAC-SHA256(key, "id.timestamp.body")).
    public static func webhookSignature(id: String, timestamp: Int64, body: [UInt8], key: [UInt8]) -> String {
        Data(HMACSHA256.authenticationCode(for: Array("\(id).\(timestamp).".utf8) + body, key: key)).base64EncodedString()
    }

    /// A new `whsec_` secret (24 random bytes).
    public static func newWebhookSecret() throws -> String {
        "whsec_" + Data(try SecureRandom.bytes(24)).base64EncodedString()
    }

    // MARK: helpers

    static func trimmedBase(_ url: String) -> String {
        var u = url
        while u.hasSuffix("/") { u.removeLast() }
        return u
    }

    static func htmlEscape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">",
            with: "&gt;")
    }

    static func formEncode(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
    }
}

extension String {
    /// Drops a trailing `&…` left unterminated by truncation.
    fileprivate func droppingPartialEntity() -> String {
        guard let amp = lastIndex(of: "&"), !self[amp...].contains(";") else { return self }
        return String(self[..<amp])
    }
}

/// A channel that cannot send as configured.
public struct ChannelError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
