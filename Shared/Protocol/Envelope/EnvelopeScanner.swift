/// Reads a plain envelope document in one pass over its bytes, for the relay's hot path.
///
/// Plain means: one JSON object of the envelope's own keys, each once, with strings of printable ASCII without
/// escapes, integers without fraction or exponent, and `activity` absent or null. That is every envelope an
/// outpost writes for a notification. The scanner records where each value lies and `Envelope.init(source:)` reads
/// them with the same checks as the general decoder, so it accepts a subset of what `StrictJSON` accepts, with the
/// same result. Anything else (a Live Activity's object, an escape, a non-ASCII byte, any error) it declines, and
/// `Envelope.decode` takes the general path, which also words every refusal.
struct EnvelopeScanner: EnvelopeFieldSource {
    private let json: UnsafeBufferPointer<UInt8>
    /// Two per key (start, end of its value), by `slot`; -1 when the key is absent.
    private let bounds: UnsafeMutableBufferPointer<Int>

    private init(json: UnsafeBufferPointer<UInt8>, bounds: UnsafeMutableBufferPointer<Int>) {
        self.json = json
        self.bounds = bounds
    }

    /// The envelope of a plain envelope document, and whether the document is its canonical form: the bytes
    /// `Envelope.jsonBytes` writes (the keys in the order of §5, no whitespace, no `activity`, no `-0`).
    static func scanned(_ json: [UInt8]) -> (envelope: Envelope, canonical: Bool)? {
        guard json.count <= Envelope.maxJSONBytes else { return nil }
        return json.withUnsafeBufferPointer { bytes in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * Envelope.CodingKeys.allCases.count) { bounds in
                bounds.initialize(repeating: -1)
                guard let canonical = scan(bytes, into: bounds) else { return nil }
                guard let envelope = try? Envelope(source: EnvelopeScanner(json: bytes, bounds: bounds)),
                      (try? envelope.validateShape()) != nil else { return nil }
                return (envelope, canonical)
            }
        }
    }

    /// Why a field is not read here; never shown, since `Envelope.decode` then decodes generally.
    private static let declined = ProtocolError.malformed("not a plain envelope document")

    private func value(_ key: Envelope.CodingKeys) throws(ProtocolError) -> UnsafeBufferPointer<UInt8> {
        let start = bounds[2 * key.slot], end = bounds[2 * key.slot + 1]
        guard start >= 0 else { throw Self.declined }
        return UnsafeBufferPointer(rebasing: json[start..<end])
    }

    func int64(_ key: Envelope.CodingKeys) throws(ProtocolError) -> Int64 {
        guard let number = StrictJSON.Fields.integer(try value(key)) else { throw Self.declined }
        return number
    }

    func unsigned(_ key: Envelope.CodingKeys) throws(ProtocolError) -> UInt64 {
        let number = try int64(key)
        guard number >= 0 else { throw Self.declined }
        return UInt64(number)
    }

    func string(_ key: Envelope.CodingKeys, maxBytes: Int) throws(ProtocolError) -> String {
        let bytes = try value(key)
        guard !bytes.isEmpty, bytes.count <= maxBytes else { throw Self.declined }
        return String(decoding: bytes, as: UTF8.self)
    }

    func base64URL(_ key: Envelope.CodingKeys, count: Int) throws(ProtocolError) -> [UInt8] {
        try Base64URL.decode(try value(key), field: key.rawValue, count: count)
    }

    func base64URL(_ key: Envelope.CodingKeys, range: ClosedRange<Int>) throws(ProtocolError) -> [UInt8] {
        try Base64URL.decode(try value(key), field: key.rawValue, range: range)
    }

    /// Always nil: the scan declines an `activity` that is not null.
    func activity() throws(ProtocolError) -> ActivityInfo? { nil }

    /// The keys in the order `Envelope.jsonBytes` writes them (a notification's: no `activity`).
    private static let canonicalOrder: [Envelope.CodingKeys] = [.v, .alg, .aud, .pairingID, .eventID, .kind, .iat, .epk, .salt,
                                                                .nonce, .ct, .sig]

    /// Records where each value lies, and says whether the document is in canonical form; nil when it is not a plain
    /// envelope object.
    private static func scan(_ b: UnsafeBufferPointer<UInt8>, into bounds: UnsafeMutableBufferPointer<Int>) -> Bool? {
        let n = b.count
        var i = 0
        var canonical = true, keys = 0
        func skipSpace() {
            let start = i
            while i < n, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
            if i != start { canonical = false }
        }
        /// The end of a string of printable ASCII starting at `i` (after its quote): the index of its closing quote.
        func plainStringEnd() -> Int? {
            var j = i
            while j < n {
                let c = b[j]
                if c == UInt8(ascii: "\"") { return j }
                guard c >= 0x20, c < 0x7F, c != UInt8(ascii: "\\") else { return nil }
                j += 1
            }
            return nil
        }
        func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

        skipSpace()
        guard i < n, b[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        var seen = 0
        while true {
            skipSpace()
            guard i < n, b[i] == UInt8(ascii: "\"") else { return nil }
            i += 1
            guard let keyEnd = plainStringEnd(),
                  let key = Envelope.CodingKeys(utf8: UnsafeBufferPointer(rebasing: b[i..<keyEnd])) else { return nil }
            i = keyEnd + 1
            guard seen & (1 << key.slot) == 0 else { return nil }
            seen |= 1 << key.slot
            if keys >= canonicalOrder.count || canonicalOrder[keys] != key { canonical = false }
            keys += 1
            skipSpace()
            guard i < n, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace()
            guard i < n else { return nil }
            switch key {
            case .v, .iat:
                let start = i
                if b[i] == UInt8(ascii: "-") {
                    canonical = false
                    i += 1
                }
                guard i < n, isDigit(b[i]) else { return nil }
                if b[i] == UInt8(ascii: "0") {
                    i += 1
                } else {
                    while i < n, isDigit(b[i]) { i += 1 }
                }
                // A fraction, an exponent or a digit after a leading zero: the general path refuses them.
                if i < n, isDigit(b[i]) || b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
                    return nil
                }
                guard i - start <= 20 else { return nil }
                bounds[2 * key.slot] = start
                bounds[2 * key.slot + 1] = i
            case .activity:
                guard i + 4 <= n, b[i] == UInt8(ascii: "n"), b[i + 1] == UInt8(ascii: "u"), b[i + 2] == UInt8(ascii: "l"),
                      b[i + 3] == UInt8(ascii: "l") else { return nil }
                i += 4
            default:
                guard b[i] == UInt8(ascii: "\"") else { return nil }
                i += 1
                guard let end = plainStringEnd() else { return nil }
                bounds[2 * key.slot] = i
                bounds[2 * key.slot + 1] = end
                i = end + 1
            }
            skipSpace()
            guard i < n else { return nil }
            if b[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            guard b[i] == UInt8(ascii: "}") else { return nil }
            i += 1
            skipSpace()
            guard i == n else { return nil }
            return canonical && keys == canonicalOrder.count
        }
    }
}

extension Envelope.CodingKeys {
    /// This key's place in `EnvelopeScanner`'s bounds.
    var slot: Int {
        switch self {
        case .v: 0
        case .alg: 1
        case .aud: 2
        case .kind: 3
        case .iat: 4
        case .epk: 5
        case .salt: 6
        case .nonce: 7
        case .ct: 8
        case .sig: 9
        case .activity: 10
        case .pairingID: 11
        case .eventID: 12
        }
    }

    /// The key whose name is exactly `utf8`, nil for any other.
    init?(utf8 name: UnsafeBufferPointer<UInt8>) {
        guard let first = name.first else { return nil }
        let candidate: Self, spelled: StaticString
        switch (name.count, first) {
        case (1, UInt8(ascii: "v")): (candidate, spelled) = (.v, "v")
        case (2, UInt8(ascii: "c")): (candidate, spelled) = (.ct, "ct")
        case (3, UInt8(ascii: "a")): (candidate, spelled) = name[1] == UInt8(ascii: "l") ? (.alg, "alg") : (.aud, "aud")
        case (3, UInt8(ascii: "i")): (candidate, spelled) = (.iat, "iat")
        case (3, UInt8(ascii: "e")): (candidate, spelled) = (.epk, "epk")
        case (3, UInt8(ascii: "s")): (candidate, spelled) = (.sig, "sig")
        case (4, UInt8(ascii: "k")): (candidate, spelled) = (.kind, "kind")
        case (4, UInt8(ascii: "s")): (candidate, spelled) = (.salt, "salt")
        case (5, UInt8(ascii: "n")): (candidate, spelled) = (.nonce, "nonce")
        case (8, UInt8(ascii: "a")): (candidate, spelled) = (.activity, "activity")
        case (8, UInt8(ascii: "e")): (candidate, spelled) = (.eventID, "event_id")
        case (10, UInt8(ascii: "p")): (candidate, spelled) = (.pairingID, "pairing_id")
        default: return nil
        }
        guard UnsafeBufferPointer(start: spelled.utf8Start, count: spelled.utf8CodeUnitCount).elementsEqual(name) else { return nil }
        self = candidate
    }
}
