/// A coding key for any string, used to list the keys a JSON object holds.
struct AnyCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Throws `malformed` when the current object holds a key outside `allowed`
    /// (strict decoding of every protocol and service body).
    public func rejectUnknownKeys(allowed: Set<String>, in type: String) throws {
        let container = try container(keyedBy: AnyCodingKey.self)
        for key in container.allKeys where !allowed.contains(key.stringValue) {
            throw ProtocolError.malformed("unknown field \(key.stringValue) in \(type)")
        }
    }
}

extension KeyedDecodingContainer {
    /// Decodes a base64url field of exactly `count` bytes.
    func decodeBase64URL(_ key: Key, count: Int) throws -> [UInt8] {
        try Base64URL.decode(decode(String.self, forKey: key), field: key.stringValue, count: count)
    }

    /// Decodes a base64url field whose length lies in `range`.
    func decodeBase64URL(_ key: Key, range: ClosedRange<Int>) throws -> [UInt8] {
        try Base64URL.decode(decode(String.self, forKey: key), field: key.stringValue, range: range)
    }

    /// Decodes a non-negative integer timestamp or counter.
    func decodeUnsigned(_ key: Key) throws -> UInt64 {
        let value = try decode(Int64.self, forKey: key)
        guard value >= 0 else { throw ProtocolError.malformed("\(key.stringValue) must not be negative") }
        return UInt64(value)
    }

    /// Decodes a string of at most `maxBytes` UTF-8 bytes.
    func decodeString(_ key: Key, maxBytes: Int, allowEmpty: Bool = false) throws -> String {
        let s = try decode(String.self, forKey: key)
        guard s.utf8.count <= maxBytes else { throw ProtocolError(.tooLarge, "\(key.stringValue) is longer than \(maxBytes) bytes") }
        guard allowEmpty || !s.isEmpty else { throw ProtocolError.malformed("\(key.stringValue) is empty") }
        return s
    }
}
