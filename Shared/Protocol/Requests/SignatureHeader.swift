/// The `Mailwake-Signature` header of a signed request (PROTOCOL.md §8).
///
/// `keyid="<id>", ts="<unix>", nonce="<b64u 16 bytes>", sig="<b64u 64 bytes>"`
public struct SignatureHeader: Sendable, Hashable {
    /// The HTTP header name.
    public static let name = "Mailwake-Signature"
    /// The longest header value accepted.
    public static let maxLength = 512

    /// The signer's outpost id or device id.
    public var keyID: String
    /// Unix seconds when the request was signed.
    public var timestamp: Int64
    /// 16 random bytes, unique per key within the replay window.
    public var nonce: [UInt8]
    /// Raw ECDSA `r‖s`.
    public var signature: [UInt8]

    public init(keyID: String, timestamp: Int64, nonce: [UInt8], signature: [UInt8]) {
        self.keyID = keyID
        self.timestamp = timestamp
        self.nonce = nonce
        self.signature = signature
    }

    /// The header value, parameters in the order `keyid, ts, nonce, sig`.
    public var value: String {
        "keyid=\"\(keyID)\", ts=\"\(timestamp)\", nonce=\"\(Base64URL.encode(nonce))\", sig=\"\(Base64URL.encode(signature))\""
    }

    /// Parses a header value strictly: exactly the four parameters, each once,
    /// quoted, in the order `keyid, ts, nonce, sig`, separated by `", "`, so
    /// every header has one accepted spelling.
    public static func parse(_ value: String) throws(ProtocolError) -> SignatureHeader {
        guard value.utf8.count <= maxLength else { throw ProtocolError(.tooLarge, "\(name) header is too long") }
        var params: [String: String] = [:]
        for part in value.split(separator: ",", omittingEmptySubsequences: false) {
            let item = part.trimmingSpaces()
            guard let eq = item.firstIndex(of: "=") else { throw .malformed("\(name) parameter without '='") }
            let key = String(item[..<eq])
            var raw = item[item.index(after: eq)...]
            guard raw.count >= 2, raw.first == "\"", raw.last == "\"" else { throw .malformed("\(name) parameter \(key) is not quoted") }
            raw = raw.dropFirst().dropLast()
            guard !raw.contains("\""), !raw.contains("\\") else { throw .malformed("\(name) parameter \(key) has quotes inside") }
            guard ["keyid", "ts", "nonce", "sig"].contains(key) else { throw .malformed("\(name) has unknown parameter \(key)") }
            guard params.updateValue(String(raw), forKey: key) == nil else { throw .malformed("\(name) repeats parameter \(key)") }
        }
        guard let keyID = params["keyid"], let ts = params["ts"], let nonce = params["nonce"], let sig = params["sig"] else {
            throw .malformed("\(name) needs keyid, ts, nonce and sig")
        }
        guard KeyIdentity.isWellFormedID(keyID) else { throw .malformed("keyid must be a 22-character key id") }
        guard !ts.isEmpty, ts.utf8.count <= 12, ts.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              !(ts.utf8.count > 1 && ts.utf8.first == 0x30), let timestamp = Int64(ts)
        else { throw .malformed("ts must be Unix seconds in ASCII decimal") }
        let header = SignatureHeader(
            keyID: keyID, timestamp: timestamp,
            nonce: try Base64URL.decode(nonce, field: "nonce", count: 16),
            signature: try Base64URL.decode(sig, field: "sig", count: 64))
        guard header.value == value else {
            throw .malformed("\(name) must be keyid=\"…\", ts=\"…\", nonce=\"…\", sig=\"…\" in that order")
        }
        return header
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return s
    }
}
