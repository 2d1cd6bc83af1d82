/// Base64url without padding (RFC 4648 §5), strict.
///
/// Decoding rejects padding, characters outside the URL-safe alphabet, a
/// length of 1 mod 4, and non-zero trailing bits, so every byte string has
/// exactly one accepted encoding.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodeTable: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// Encodes bytes.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out = [UInt8]()
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the encoding of `bytes` to `out`, with no string in between (the relay's APNs payload carries kilobytes).
    public static func append(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        func write(_ input: UnsafeBufferPointer<UInt8>) {
            // Sized from the very buffer it encodes.
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: encodedLength(of: input.count)))
            out.withUnsafeMutableBufferPointer { o in
                alphabet.withUnsafeBufferPointer { a in
                    let n = input.count
                    var i = 0, j = start
                    while i + 3 <= n {
                        let b0 = input[i], b1 = input[i + 1], b2 = input[i + 2]
                        o[j] = a[Int(b0 >> 2)]
                        o[j + 1] = a[Int((b0 & 0x03) << 4 | b1 >> 4)]
                        o[j + 2] = a[Int((b1 & 0x0F) << 2 | b2 >> 6)]
                        o[j + 3] = a[Int(b2 & 0x3F)]
                        i += 3
                        j += 4
                    }
                    if n - i >= 1 {
                        let b0 = input[i], b1: UInt8 = n - i == 2 ? input[i + 1] : 0
                        o[j] = a[Int(b0 >> 2)]
                        o[j + 1] = a[Int((b0 & 0x03) << 4 | b1 >> 4)]
                        if n - i == 2 { o[j + 2] = a[Int((b1 & 0x0F) << 2)] }
                    }
                }
            }
        }
        bytes.withContiguousBuffer(write)
    }

    /// The length of the encoding of `byteCount` bytes.
    public static func encodedLength(of byteCount: Int) -> Int {
        (byteCount * 4 + 2) / 3
    }

    /// Decodes a string, or returns nil when it is not canonical base64url.
    public static func decode(_ string: some StringProtocol) -> [UInt8]? {
        string.withContiguousUTF8 { decode($0) }
    }

    /// Decodes UTF-8 bytes, or returns nil when they are not canonical base64url.
    public static func decode(_ chars: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let n = chars.count
        if n % 4 == 1 { return nil }
        var valid = true
        // Written in place (a valid encoding fills it exactly): the relay decodes five fields an envelope, the ciphertext
        // about 600 characters. Zero-filled rather than `unsafeUninitializedCapacity`, which looks up the array's type
        // metadata at run time on every call.
        var out = [UInt8](repeating: 0, count: n * 3 / 4)
        out.withUnsafeMutableBufferPointer { o in
            decodeTable.withUnsafeBufferPointer { t in
                var i = 0, j = 0
                while i + 4 <= n {
                    let a = t[Int(chars[i])], b = t[Int(chars[i + 1])], c = t[Int(chars[i + 2])], d = t[Int(chars[i + 3])]
                    if (a | b | c | d) & 0xC0 != 0 {
                        valid = false
                        break
                    }
                    o[j] = a << 2 | b >> 4
                    o[j + 1] = b << 4 | c >> 2
                    o[j + 2] = c << 6 | d
                    i += 4
                    j += 3
                }
                if valid, n - i >= 2 {
                    let a = t[Int(chars[i])], b = t[Int(chars[i + 1])], c = n - i == 3 ? t[Int(chars[i + 2])] : 0
                    // Non-zero trailing bits would give a second encoding of the same bytes.
                    if (a | b | c) & 0xC0 != 0 || (n - i == 2 ? b & 0x0F : c & 0x03) != 0 {
                        valid = false
                    } else {
                        o[j] = a << 2 | b >> 4
                        if n - i == 3 { o[j + 1] = b << 4 | c >> 2 }
                    }
                }
            }
        }
        return valid ? out : nil
    }

    /// Decodes a field that must hold exactly `count` bytes.
    static func decode(_ string: String, field: String, count: Int) throws(ProtocolError) -> [UInt8] {
        try checked(string.withContiguousUTF8 { decode($0) }, field: field, count: count)
    }

    /// Decodes a field (its UTF-8 bytes) that must hold exactly `count` bytes.
    static func decode(_ chars: ArraySlice<UInt8>, field: String, count: Int) throws(ProtocolError) -> [UInt8] {
        try chars.withUnsafeBufferPointer { chars throws(ProtocolError) in try decode(chars, field: field, count: count) }
    }

    /// Decodes a field (its UTF-8 bytes) that must hold exactly `count` bytes.
    static func decode(_ chars: UnsafeBufferPointer<UInt8>, field: String, count: Int) throws(ProtocolError) -> [UInt8] {
        try checked(decode(chars), field: field, count: count)
    }

    /// The bytes a field decoded to, or why they are refused.
    private static func checked(_ decoded: [UInt8]?, field: String, count: Int) throws(ProtocolError) -> [UInt8] {
        guard let bytes = decoded else { throw .malformed("\(field) is not base64url without padding") }
        guard bytes.count == count else { throw .malformed("\(field) must be \(count) bytes, got \(bytes.count)") }
        return bytes
    }

    /// Decodes a field whose length must lie in `range`.
    static func decode(_ string: String, field: String, range: ClosedRange<Int>) throws(ProtocolError) -> [UInt8] {
        try checkLength(string.utf8.count, field: field, range: range)
        return try checked(string.withContiguousUTF8 { decode($0) }, field: field, range: range)
    }

    /// Decodes a field (its UTF-8 bytes) whose length must lie in `range`.
    static func decode(_ chars: ArraySlice<UInt8>, field: String, range: ClosedRange<Int>) throws(ProtocolError) -> [UInt8] {
        try chars.withUnsafeBufferPointer { chars throws(ProtocolError) in try decode(chars, field: field, range: range) }
    }

    /// Decodes a field (its UTF-8 bytes) whose length must lie in `range`.
    static func decode(_ chars: UnsafeBufferPointer<UInt8>, field: String, range: ClosedRange<Int>) throws(ProtocolError) -> [UInt8] {
        try checkLength(chars.count, field: field, range: range)
        return try checked(decode(chars), field: field, range: range)
    }

    /// Refuses a field too long to decode within `range` before decoding it.
    private static func checkLength(_ characters: Int, field: String, range: ClosedRange<Int>) throws(ProtocolError) {
        guard characters <= encodedLength(of: range.upperBound) else {
            throw ProtocolError(.tooLarge, "\(field) is longer than \(range.upperBound) bytes")
        }
    }

    /// The bytes a field decoded to when their count lies in `range`, or why they are refused.
    private static func checked(_ decoded: [UInt8]?, field: String, range: ClosedRange<Int>) throws(ProtocolError) -> [UInt8] {
        guard let bytes = decoded else { throw .malformed("\(field) is not base64url without padding") }
        guard range.contains(bytes.count) else {
            throw .malformed("\(field) must be \(range.lowerBound)...\(range.upperBound) bytes, got \(bytes.count)")
        }
        return bytes
    }
}
