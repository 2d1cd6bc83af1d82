/// Where `Envelope.init(source:)` reads an envelope's fields: the strict JSON fields of any envelope document, or
/// `EnvelopeScanner`'s of a plain one. Both read the same checks (lengths, encodings, `v` and `alg`), written once.
protocol EnvelopeFieldSource {
    /// An integer that fits `Int64`.
    func int64(_ key: Envelope.CodingKeys) throws(ProtocolError) -> Int64
    /// A non-negative integer.
    func unsigned(_ key: Envelope.CodingKeys) throws(ProtocolError) -> UInt64
    /// A non-empty string of at most `maxBytes` UTF-8 bytes.
    func string(_ key: Envelope.CodingKeys, maxBytes: Int) throws(ProtocolError) -> String
    /// A base64url field of exactly `count` bytes.
    func base64URL(_ key: Envelope.CodingKeys, count: Int) throws(ProtocolError) -> [UInt8]
    /// A base64url field whose length lies in `range`.
    func base64URL(_ key: Envelope.CodingKeys, range: ClosedRange<Int>) throws(ProtocolError) -> [UInt8]
    /// The `activity` object, nil when absent or null.
    func activity() throws(ProtocolError) -> ActivityInfo?
}

extension StrictJSON.Fields: EnvelopeFieldSource {
    func int64(_ key: Envelope.CodingKeys) throws(ProtocolError) -> Int64 { try int64(key.rawValue) }

    func unsigned(_ key: Envelope.CodingKeys) throws(ProtocolError) -> UInt64 { try unsigned(key.rawValue) }

    func string(_ key: Envelope.CodingKeys, maxBytes: Int) throws(ProtocolError) -> String {
        try string(key.rawValue, maxBytes: maxBytes)
    }

    func base64URL(_ key: Envelope.CodingKeys, count: Int) throws(ProtocolError) -> [UInt8] {
        try base64URL(key.rawValue, count: count)
    }

    func base64URL(_ key: Envelope.CodingKeys, range: ClosedRange<Int>) throws(ProtocolError) -> [UInt8] {
        try base64URL(key.rawValue, range: range)
    }

    func activity() throws(ProtocolError) -> ActivityInfo? {
        try object(Envelope.CodingKeys.activity.rawValue, allowed: ActivityInfo.fieldNames, in: "activity")
            .map { f throws(ProtocolError) in try ActivityInfo(fields: f) }
    }
}
