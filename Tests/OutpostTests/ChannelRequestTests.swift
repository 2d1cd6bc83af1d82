import Foundation
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakeProtocol
@testable import OutpostService
import TestSupport
import Testing

/// Each channel's exact request format, its encryption and signature, and
/// how its answers are read.
@Suite("Outpost: channel requests")
struct ChannelRequestTests {
    static let content = NotificationContent(mailbox: "Personal", folder: "INBOX",
                                             from: .init(name: "Example Bank", address: "no-reply@bank.example"),
                                             subject: "Your sign-in code <today>", receivedAt: 1_764_400_000, code: "482913")

    static func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    static func bark(encryption: String? = nil) -> (ChannelRecord, ChannelSecrets) {
        var record = ChannelRecord(id: 7, name: "bark", kind: .bark, url: "https://bark.example/")
        record.options.encryption = encryption
        record.options.link = "https://mail.example"
        var secrets = ChannelSecrets()
        secrets.deviceKey = "DEVICEKEY123"
        secrets.encryptionKey = "0123456789abcdef0123456789abcdef"
        return (record, secrets)
    }

    @Test func barkIsAJSONPostToPushWithTheFieldsTheAppShows() throws {
        let (record, secrets) = Self.bark()
        let request = try ChannelRequest.make(Self.content, eventID: "e1", channel: record, secrets: secrets, now: 1_764_400_001)
        #expect(request.method == .post && request.url == "https://bark.example/push")
        let body = try Self.json(request.body)
        #expect(body["device_key"] as? String == "DEVICEKEY123")
        #expect(body["title"] as? String == "Example Bank")
        #expect(body["subtitle"] as? String == "Your sign-in code <today>")
        #expect(body["body"] as? String == "Code 482913")
        #expect(body["copy"] as? String == "482913")
        #expect(body["group"] as? String == "Personal")
        #expect(body["level"] as? String == "timeSensitive")
        #expect(body["url"] as? String == "https://mail.example")
    }

    @Test(arguments: ["gcm", "cbc"])
    func barkEncryptionDecryptsWithTheKeyAndIVTheAppHas(_ mode: String) throws {
        let (record, secrets) = Self.bark(encryption: mode)
        let request = try ChannelRequest.make(Self.content, eventID: "e1", channel: record, secrets: secrets, now: 0)
        let body = try Self.json(request.body)
        #expect(body["device_key"] as? String == "DEVICEKEY123")
        #expect(body["title"] == nil && body["subtitle"] == nil, "nothing readable outside the ciphertext")
        let iv = try #require(body["iv"] as? String)
        #expect(iv.utf8.count == (mode == "gcm" ? 12 : 16))
        let encoded = try #require(body["ciphertext"] as? String)
        let ciphertext = Array(try #require(Data(base64Encoded: encoded)))
        let key = Array(secrets.encryptionKey!.utf8)
        let plaintext = mode == "gcm"
            ? try AESGCM.open(ciphertext, using: SymmetricKey(bytes: key), nonce: Array(iv.utf8), authenticating: [])
            : try AESCBC.decrypt(ciphertext, key: key, iv: Array(iv.utf8))
        let fields = try Self.json(plaintext)
        #expect(fields["subtitle"] as? String == "Your sign-in code <today>" && fields["copy"] as? String == "482913")
        var flipped = ciphertext
        flipped[0] ^= 1
        if mode == "gcm" {
            #expect(throws: CryptoError.self) { try AESGCM.open(flipped, using: SymmetricKey(bytes: key), nonce: Array(iv.utf8),
                                                                authenticating: []) }
        }
        let again = try Self.json(try ChannelRequest.make(Self.content, eventID: "e1", channel: record, secrets: secrets, now: 0).body)
        #expect(again["iv"] as? String != iv, "a fresh IV each time")
    }

    @Test func barkEncryptionRefusesAKeyOfTheWrongLength() {
        var (record, secrets) = Self.bark(encryption: "gcm")
        secrets.encryptionKey = "short"
        #expect(throws: ChannelError.self) { try ChannelRequest.make(Self.content, eventID: "e", channel: record, secrets: secrets,
                                                                     now: 0) }
        record.options.encryption = "ecb"
        secrets.encryptionKey = "0123456789abcdef0123456789abcdef"
        #expect(throws: ChannelError.self) { try ChannelRequest.make(Self.content, eventID: "e", channel: record, secrets: secrets,
                                                                     now: 0) }
    }

    static func form(_ body: [UInt8]) -> [String: String] {
        var out: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            out[kv[0]] = kv.count > 1 ? kv[1].removingPercentEncoding : ""
        }
        return out
    }

    static func pushover() -> (ChannelRecord, ChannelSecrets) {
        var record = ChannelRecord(id: 8, name: "po", kind: .pushover, url: "https://api.pushover.net")
        record.options.priority = 1
        var secrets = ChannelSecrets()
        secrets.appToken = "azGDORePK8gMaC0QOYAMyEEuzJnyUi"
        secrets.userKey = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"
        return (record, secrets)
    }

    @Test func pushoverIsAFormPostWithEscapedHTMLAndTheReceivedTime() throws {
        let (record, secrets) = Self.pushover()
        let request = try ChannelRequest.make(Self.content, eventID: "e", channel: record, secrets: secrets, now: 0)
        #expect(request.url == "https://api.pushover.net/1/messages.json")
        #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
        let form = Self.form(request.body)
        #expect(form["token"] == secrets.appToken && form["user"] == secrets.userKey)
        #expect(form["title"] == "Example Bank (Personal)")
        #expect(form["message"] == "Your sign-in code &lt;today&gt;\nCode: <b>482913</b>")
        #expect(form["html"] == "1" && form["timestamp"] == "1764400000" && form["priority"] == "1")
    }

    @Test func pushoverLimitsAreKeptAndTheCodeSurvivesTruncation() throws {
        let (record, secrets) = Self.pushover()
        var long = Self.content
        long.subject = String(repeating: "Ä & ", count: 600)
        long.from.name = String(repeating: "N", count: 400)
        let form = Self.form(try ChannelRequest.make(long, eventID: "e", channel: record, secrets: secrets, now: 0).body)
        let message = try #require(form["message"])
        #expect(message.count <= ChannelRequest.pushoverMessageLimit)
        #expect(message.hasSuffix("Code: <b>482913</b>"))
        #expect(!message.contains("&am…") && !message.contains("&…"), "no entity cut in half")
        #expect(try #require(form["title"]).count <= ChannelRequest.pushoverTitleLimit)
    }

    @Test func webhooksAreSignedTheStandardWebhooksWayAndVerifyIndependently() async throws {
        let secret = try ChannelRequest.newWebhookSecret()
        var secrets = ChannelSecrets()
        secrets.webhookSecret = secret
        let record = ChannelRecord(id: 9, name: "hook", kind: .webhook, url: "https://hooks.example/mailwake")
        let request = try ChannelRequest.make(Self.content, eventID: "0190-abc", channel: record, secrets: secrets, now: 1_764_400_005)
        #expect(request.url == "https://hooks.example/mailwake")
        #expect(request.headers["webhook-id"] == "msg_0190-abc" && request.headers["webhook-timestamp"] == "1764400005")
        let event = try Self.json(request.body)
        #expect(event["type"] as? String == "mail.received")
        let data = try #require(event["data"] as? [String: Any])
        #expect(data["code"] as? String == "482913" && data["subject"] as? String == Self.content.subject)
        // An independent verifier (Python's hmac), as a receiver would run it.
        let signature = try #require(request.headers["webhook-signature"])
        #expect(try await Self.pythonVerifies(secret: secret, id: "msg_0190-abc", timestamp: "1764400005", body: request.body,
                                              signature: signature))
        var tampered = request.body
        tampered[tampered.count / 2] ^= 1
        #expect(try await !Self.pythonVerifies(secret: secret, id: "msg_0190-abc", timestamp: "1764400005", body: tampered,
                                               signature: signature))
    }

    static func pythonVerifies(secret: String, id: String, timestamp: String, body: [UInt8], signature: String) async throws -> Bool {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-whsec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(body).write(to: dir.appendingPathComponent("body"))
        let script = """
            import base64, hashlib, hmac, sys
            secret, msg_id, ts, sig, path = sys.argv[1:6]
            key = base64.b64decode(secret[len("whsec_"):])
            body = open(path, "rb").read()
            expected = base64.b64encode(hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()).decode()
            ok = any(hmac.compare_digest(expected, s.split(",", 1)[1]) for s in sig.split(" ") if s.startswith("v1,"))
            print("valid" if ok else "invalid")
            """
        try script.write(to: dir.appendingPathComponent("verify.py"), atomically: true, encoding: .utf8)
        let out = try await runOffPool {
            try ChildProcess.run("/usr/bin/python3", [dir.appendingPathComponent("verify.py").path, secret, id, timestamp, signature,
                                                      dir.appendingPathComponent("body").path], directory: nil)
        }
        return out.contains("valid") && !out.contains("invalid")
    }

    @Test(arguments: ["whsec_", "whsec_!!!", "sk_abc", "whsec_" + Data(repeating: 1, count: 8).base64EncodedString()])
    func malformedWebhookSecretsAreRefused(_ secret: String) {
        #expect(ChannelRequest.webhookKey(secret) == nil)
    }

    static func response(_ status: Int, _ body: String = "", headers: HTTPHeaders = [:]) -> HTTPClient.Response {
        HTTPClient.Response(status: HTTPStatus(status), headers: headers, body: Array(body.utf8), version: .http1_1,
                            transfer: .init(newConnections: 0, localPort: 0, totalSeconds: 0, connectSeconds: 0))
    }

    @Test func answersAreReadAsEachServiceMeansThem() {
        #expect(ChannelOutcome.of(Self.response(200, "{\"status\":1}"), kind: .pushover) == .sent)
        #expect(ChannelOutcome.of(Self.response(200, "{\"code\":200}"), kind: .bark) == .sent)
        #expect(ChannelOutcome.of(Self.response(204), kind: .webhook) == .sent)
        guard case .disable = ChannelOutcome.of(Self.response(410), kind: .webhook) else { Issue.record("410 disables a webhook"); return }
        guard case .failed = ChannelOutcome.of(Self.response(400, "{\"status\":0,\"errors\":[\"user key is invalid\"]}"),
                                               kind: .pushover) else {
            Issue.record("Pushover 4xx is final"); return
        }
        let quotaHeaders: HTTPHeaders = ["x-limit-app-limit": "10000", "x-limit-app-remaining": "0", "x-limit-app-reset": "1767225600"]
        #expect(ChannelOutcome.of(Self.response(429, headers: quotaHeaders), kind: .pushover)
            == .failed("Pushover: the application's monthly message quota is used up until 2026-01-01"))
        #expect(PushoverQuota(quotaHeaders)?.isLow == true)
        #expect(PushoverQuota(["x-limit-app-limit": "10000", "x-limit-app-remaining": "7500"])?.isLow == false)
        #expect(PushoverQuota([:]) == nil)
        #expect(ChannelOutcome.of(Self.response(503), kind: .pushover) == .retry(after: 5, reason: "pushover answered 503"))
        #expect(ChannelOutcome.of(Self.response(429, headers: ["retry-after": "120"]), kind: .webhook) == .retry(after: 120,
            reason: "webhook answered 429"))
        guard case .failed = ChannelOutcome.of(Self.response(404), kind: .bark) else { Issue.record("Bark 4xx is final"); return }
        guard case .retry = ChannelOutcome.of(Self.response(500), kind: .webhook) else { Issue.record("webhook 5xx is retried"); return }
    }

    @Test func retriesBackOffFromFiveSecondsToTenMinutes() {
        #expect(ChannelDeliveryPass.backoff(attempts: 1) == 5)
        #expect(ChannelDeliveryPass.backoff(attempts: 2) == 10)
        #expect(ChannelDeliveryPass.backoff(attempts: 20) == 600)
    }
}
