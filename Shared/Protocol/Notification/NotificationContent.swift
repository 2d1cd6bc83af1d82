/// The notification plaintext sealed inside an envelope (PROTOCOL.md §6).
public struct NotificationContent: Sendable, Hashable {
    /// The sender.
    public struct Sender: Sendable, Hashable {
        public var name: String
        public var address: String
        public init(name: String, address: String) {
            self.name = name
            self.address = address
        }
    }

    /// The marker that ends a shortened field.
    public static let ellipsis = "…"

    /// The mailbox label, e.g. `Work`.
    public var mailbox: String
    /// The IMAP folder, e.g. `INBOX`.
    public var folder: String
    public var from: Sender
    public var subject: String
    /// When the server received the message (Unix seconds).
    public var receivedAt: UInt64
    /// A detected one-time code.
    public var code: String?
    /// A message reference for body reading (§7).
    public var ref: String?
    /// Whether a trusted receiving server authenticated the sender's domain (revision 2); nil: unknown.
    public var senderAuth: SenderAuthentication?

    public init(mailbox: String, folder: String, from: Sender, subject: String, receivedAt: UInt64, code: String? = nil,
                ref: String? = nil,
                senderAuth: SenderAuthentication? = nil) {
        self.mailbox = mailbox
        self.folder = folder
        self.from = from
        self.subject = subject
        self.receivedAt = receivedAt
        self.code = code
        self.ref = ref
        self.senderAuth = senderAuth
    }

    /// The plaintext JSON, keys in the order of §6, optional keys omitted when nil.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter(capacity: 256 + subject.utf8.count)
        w.beginObject()
        w.string("mailbox", mailbox)
        w.string("folder", folder)
        w.beginObject("from")
        w.string("name", from.name)
        w.string("address", from.address)
        w.endObject()
        w.string("subject", subject)
        w.uint("received_at", receivedAt)
        if let code { w.string("code", code) }
        if let ref { w.string("ref", ref) }
        if let senderAuth { w.string("sender_auth", senderAuth.rawValue) }
        w.endObject()
        return w.bytes
    }

    /// Decodes a plaintext strictly (the device side); a `pad` key is ignored.
    public static func decode(_ json: [UInt8]) throws(ProtocolError) -> NotificationContent {
        try StrictJSON.decode(NotificationContent.self, from: json, limits: .init(maxBytes: Envelope.maxCiphertextBytes))
    }
}

extension NotificationContent: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case mailbox, folder, from, subject, code, ref
        case receivedAt = "received_at"
        case senderAuth = "sender_auth"
        /// Padding (§6, revision 2): accepted with any value and ignored.
        case pad
    }

    enum SenderKeys: String, CodingKey, CaseIterable {
        case name, address
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "notification")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mailbox = try c.decodeString(.mailbox, maxBytes: 4096, allowEmpty: true)
        folder = try c.decodeString(.folder, maxBytes: 4096, allowEmpty: true)
        let fromDecoder = try c.superDecoder(forKey: .from)
        try fromDecoder.rejectUnknownKeys(allowed: Set(SenderKeys.allCases.map(\.rawValue)), in: "from")
        let f = try fromDecoder.container(keyedBy: SenderKeys.self)
        from = Sender(name: try f.decodeString(.name, maxBytes: 4096, allowEmpty: true),
                      address: try f.decodeString(.address, maxBytes: 4096, allowEmpty: true))
        subject = try c.decodeString(.subject, maxBytes: 4096, allowEmpty: true)
        receivedAt = try c.decodeUnsigned(.receivedAt)
        code = try c.decodeIfPresent(String.self, forKey: .code)
        ref = try c.decodeIfPresent(String.self, forKey: .ref)
        senderAuth = try c.decodeIfPresent(SenderAuthentication.self, forKey: .senderAuth)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mailbox, forKey: .mailbox)
        try c.encode(folder, forKey: .folder)
        var f = c.nestedContainer(keyedBy: SenderKeys.self, forKey: .from)
        try f.encode(from.name, forKey: .name)
        try f.encode(from.address, forKey: .address)
        try c.encode(subject, forKey: .subject)
        try c.encode(receivedAt, forKey: .receivedAt)
        try c.encodeIfPresent(code, forKey: .code)
        try c.encodeIfPresent(ref, forKey: .ref)
        try c.encodeIfPresent(senderAuth, forKey: .senderAuth)
    }
}
