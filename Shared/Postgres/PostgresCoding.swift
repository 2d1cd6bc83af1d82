public import Foundation

/// A Swift value that can be sent as a query parameter (binary format).
public protocol PostgresEncodable: Sendable {
    /// The parameter's type OID, sent with the statement.
    static var postgresType: PostgresDataType { get }
    /// Appends the binary representation; not called for NULL.
    func encode(into buffer: inout [UInt8])
    /// Whether this value is SQL NULL (only `Optional.none`).
    var isPostgresNull: Bool { get }
}

extension PostgresEncodable {
    public var isPostgresNull: Bool { false }
}

/// A Swift value that a result column (binary format) can be decoded into.
public protocol PostgresDecodable: Sendable {
    /// Decodes a non-NULL value of column type `type`.
    init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure)
    /// The value for SQL NULL; throws `.unexpectedNull` unless the type is optional.
    static func postgresNull() throws(PostgresDecodingFailure) -> Self
}

extension PostgresDecodable {
    public static func postgresNull() throws(PostgresDecodingFailure) -> Self { throw .unexpectedNull }
}

/// Why one column could not be decoded (turned into a `PostgresError` with the
/// column's name; never carries the value).
public enum PostgresDecodingFailure: Error, Sendable, Equatable {
    case unexpectedNull
    case typeMismatch(PostgresDataType)
    case invalidData(String)
}

/// A type that can be an element of a PostgreSQL array parameter or column.
public protocol PostgresArrayElement: PostgresEncodable, PostgresDecodable {
    static var postgresArrayType: PostgresDataType { get }
}

/// JSONB (or JSON) as raw UTF-8 bytes; encode and decode with your JSON coder.
public struct PostgresJSONB: Sendable, Hashable, PostgresEncodable, PostgresDecodable {
    public var bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(_ text: String) { bytes = Array(text.utf8) }

    public static var postgresType: PostgresDataType { .jsonb }
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(1)  // jsonb binary format version
        buffer.append(contentsOf: bytes)
    }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        switch type {
        case .jsonb:
            guard bytes.first == 1 else { throw .invalidData("unsupported jsonb version") }
            self.bytes = Array(bytes.dropFirst())
        case .json, .text:
            self.bytes = Array(bytes)
        default: throw .typeMismatch(type)
        }
    }
    /// The JSON text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

// MARK: - Big-endian helpers

/// Appends `v`'s bytes, most significant first, one `append` each: appending a raw buffer of four or eight bytes went
/// through the generic sequence path, a loop with its own checks (12 % of `mailwake-postgres-bench --encode --batch 1`).
@inlinable @inline(__always)
func appendBigEndian<T: FixedWidthInteger>(_ v: T, to buffer: inout [UInt8]) {
    var shift = T.bitWidth - 8
    while shift >= 0 {
        buffer.append(UInt8(truncatingIfNeeded: v >> shift))
        shift -= 8
    }
}

@inline(__always)
func readBigEndian<T: FixedWidthInteger>(_ type: T.Type, _ bytes: ArraySlice<UInt8>, at offset: Int = 0) -> T {
    var v: T = 0
    let start = bytes.startIndex + offset
    for i in 0..<MemoryLayout<T>.size { v = v << 8 | T(truncatingIfNeeded: bytes[start + i]) }
    return v
}

// MARK: - Integers

func decodeInteger(_ bytes: ArraySlice<UInt8>, _ type: PostgresDataType) throws(PostgresDecodingFailure) -> Int64 {
    switch (type, bytes.count) {
    case (.int2, 2): return Int64(readBigEndian(Int16.self, bytes))
    case (.int4, 4): return Int64(readBigEndian(Int32.self, bytes))
    case (.int8, 8): return readBigEndian(Int64.self, bytes)
    case (.oid, 4): return Int64(readBigEndian(UInt32.self, bytes))
    case (.int2, _), (.int4, _), (.int8, _), (.oid, _): throw .invalidData("wrong length for \(type)")
    default: throw .typeMismatch(type)
    }
}

extension Int64: PostgresEncodable, PostgresDecodable, PostgresArrayElement {
    public static var postgresType: PostgresDataType { .int8 }
    public static var postgresArrayType: PostgresDataType { .int8Array }
    public func encode(into buffer: inout [UInt8]) { appendBigEndian(self, to: &buffer) }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        self = try decodeInteger(bytes, type)
    }
}

extension Int: PostgresEncodable, PostgresDecodable, PostgresArrayElement {
    public static var postgresType: PostgresDataType { .int8 }
    public static var postgresArrayType: PostgresDataType { .int8Array }
    public func encode(into buffer: inout [UInt8]) { appendBigEndian(Int64(self), to: &buffer) }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        let v = try decodeInteger(bytes, type)
        guard let i = Int(exactly: v) else { throw .invalidData("out of range for Int") }
        self = i
    }
}

extension Int32: PostgresEncodable, PostgresDecodable, PostgresArrayElement {
    public static var postgresType: PostgresDataType { .int4 }
    public static var postgresArrayType: PostgresDataType { .int4Array }
    public func encode(into buffer: inout [UInt8]) { appendBigEndian(self, to: &buffer) }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        let v = try decodeInteger(bytes, type)
        guard let i = Int32(exactly: v) else { throw .invalidData("out of range for Int32") }
        self = i
    }
}

extension Int16: PostgresEncodable, PostgresDecodable, PostgresArrayElement {
    public static var postgresType: PostgresDataType { .int2 }
    public static var postgresArrayType: PostgresDataType { .int2Array }
    public func encode(into buffer: inout [UInt8]) { appendBigEndian(self, to: &buffer) }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        let v = try decodeInteger(bytes, type)
        guard let i = Int16(exactly: v) else { throw .invalidData("out of range for Int16") }
        self = i
    }
}

// MARK: - Bool, floating point

extension Bool: PostgresEncodable, PostgresDecodable, PostgresArrayElement {
    public static var postgresType: PostgresDataType { .bool }
    public static var postgresArrayType: PostgresDataType { .boolArray }
    public func encode(into buffer: inout [UInt8]) { buffer.append(self ? 1 : 0) }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        guard type == .bool else { throw .typeMismatch(type) }
        guard bytes.count == 1 else { throw .invalidData("wrong length for bool") }
        self = bytes.first! != 0
    }
}

extension Double: PostgresEncodable, PostgresDecodable, PostgresArrayElement {
    public static var postgresType: PostgresDataType { .float8 }
    public static var postgresArrayType: PostgresDataType { .float8Array }
    public func encode(into buffer: inout [UInt8]) { appendBigEndian(bitPattern, to: &buffer) }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        switch (type, bytes.count) {
        case (.float8, 8): self = Double(bitPattern: readBigEndian(UInt64.self, bytes))
        case (.float4, 4): self = Double(Float(bitPattern: readBigEndian(UInt32.self, bytes)))
        case (.float8, _), (.float4, _): throw .invalidData("wrong length for \(type)")
        default:
            if type == .int2 || type == .int4 || type == .int8 { self = Double(try decodeInteger(bytes,
                type)) } else { throw .typeMismatch(type) }
        }
    }
}

extension Float: PostgresEncodable, PostgresDecodable, PostgresArrayElement {
    public static var postgresType: PostgresDataType { .float4 }
    public static var postgresArrayType: PostgresDataType { .float4Array }
    public func encode(into buffer: inout [UInt8]) { appendBigEndian(bitPattern, to: &buffer) }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        guard type == .float4 else { throw .typeMismatch(type) }
        guard bytes.count == 4 else { throw .invalidData("wrong length for float4") }
        self = Float(bitPattern: readBigEndian(UInt32.self, bytes))
    }
}

// MARK: - Text

extension String: PostgresEncodable, PostgresDecodable, PostgresArrayElement {
    public static var postgresType: PostgresDataType { .text }
    public static var postgresArrayType: PostgresDataType { .textArray }
    public func encode(into buffer: inout [UInt8]) { buffer.append(contentsOf: utf8) }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        if type.isTextual {
            guard let s = String(validating: bytes, as: UTF8.self) else { throw .invalidData("text is not UTF-8") }
            self = s
        } else if type == .uuid {
            guard bytes.count == 16 else { throw .invalidData("wrong length for uuid") }
            self = formatUUID(bytes)
        } else if type == .jsonb {
            guard bytes.first == 1, let s = String(validating: bytes.dropFirst(), as: UTF8.self) else { throw .invalidData("bad jsonb") }
            self = s
        } else if type == .numeric {
            self = try decodeNumeric(bytes)
        } else {
            throw .typeMismatch(type)
        }
    }
}

func formatUUID(_ bytes: ArraySlice<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(36)
    for (i, b) in bytes.enumerated() {
        if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// numeric's binary form: ndigits, weight, sign, dscale, then base-10000 digits.
func decodeNumeric(_ bytes: ArraySlice<UInt8>) throws(PostgresDecodingFailure) -> String {
    guard bytes.count >= 8 else { throw .invalidData("short numeric") }
    let ndigits = Int(readBigEndian(Int16.self, bytes, at: 0))
    let weight = Int(readBigEndian(Int16.self, bytes, at: 2))
    let sign = readBigEndian(UInt16.self, bytes, at: 4)
    let dscale = Int(readBigEndian(Int16.self, bytes, at: 6))
    guard ndigits >= 0, bytes.count == 8 + 2 * ndigits else { throw .invalidData("bad numeric length") }
    switch sign {
    case 0xC000: return "NaN"
    case 0xD000: return "Infinity"
    case 0xF000: return "-Infinity"
    case 0x0000, 0x4000: break
    default: throw .invalidData("bad numeric sign")
    }
    let digits = (0..<ndigits).map { Int(readBigEndian(Int16.self, bytes, at: 8 + 2 * $0)) }
    func group(_ i: Int) -> Int { i >= 0 && i < digits.count ? digits[i] : 0 }
    var out = sign == 0x4000 ? "-" : ""
    // Integer part: groups 0...weight.
    if weight < 0 {
        out += "0"
    } else {
        for i in 0...weight {
            let g = String(group(i))
            out += i == 0 ? g : String(repeating: "0", count: 4 - g.count) + g
        }
    }
    if dscale > 0 {
        var frac = ""
        var i = weight + 1
        while frac.count < dscale {
            let g = String(group(i))
            frac += String(repeating: "0", count: 4 - g.count) + g
            i += 1
        }
        out += "." + frac.prefix(dscale)
    }
    return out
}

// MARK: - Bytes

extension Array: PostgresEncodable, PostgresDecodable where Element == UInt8 {
    public static var postgresType: PostgresDataType { .bytea }
    public func encode(into buffer: inout [UInt8]) { buffer.append(contentsOf: self) }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        guard type == .bytea else { throw .typeMismatch(type) }
        self = Array(bytes)
    }
}

// MARK: - Time and UUID

/// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01 UTC).
let postgresEpochOffsetMicros: Int64 = 946_684_800 * 1_000_000

extension Date: PostgresEncodable, PostgresDecodable, PostgresArrayElement {
    public static var postgresType: PostgresDataType { .timestamptz }
    public static var postgresArrayType: PostgresDataType { .timestamptzArray }
    /// Microsecond precision, like PostgreSQL.
    public func encode(into buffer: inout [UInt8]) {
        let micros = (timeIntervalSince1970 * 1_000_000).rounded()
        let clamped = micros >= 9.2e18 ? Int64.max - 1 : micros <= -9.2e18 ? Int64.min + 1 : Int64(micros)
        appendBigEndian(clamped - postgresEpochOffsetMicros, to: &buffer)
    }
    /// `infinity` / `-infinity` decode as `distantFuture` / `distantPast`.
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        switch type {
        case .timestamptz, .timestamp:
            guard bytes.count == 8 else { throw .invalidData("wrong length for \(type)") }
            let v = readBigEndian(Int64.self, bytes)
            if v == .max { self = .distantFuture; return }
            if v == .min { self = .distantPast; return }
            self = Date(timeIntervalSince1970: Double(v + postgresEpochOffsetMicros) / 1_000_000)
        case .date:
            guard bytes.count == 4 else { throw .invalidData("wrong length for date") }
            let days = readBigEndian(Int32.self, bytes)
            if days == .max { self = .distantFuture; return }
            if days == .min { self = .distantPast; return }
            self = Date(timeIntervalSince1970: Double(Int64(days) * 86_400 + 946_684_800))
        default: throw .typeMismatch(type)
        }
    }
}

extension UUID: PostgresEncodable, PostgresDecodable, PostgresArrayElement {
    public static var postgresType: PostgresDataType { .uuid }
    public static var postgresArrayType: PostgresDataType { .uuidArray }
    public func encode(into buffer: inout [UInt8]) {
        withUnsafeBytes(of: uuid) { buffer.append(contentsOf: $0) }
    }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        switch type {
        case .uuid:
            guard bytes.count == 16 else { throw .invalidData("wrong length for uuid") }
            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &raw) { dst in
                for (i, b) in bytes.enumerated() { dst[i] = b }
            }
            self = UUID(uuid: raw)
        case _ where type.isTextual:
            guard let u = UUID(uuidString: String(decoding: bytes, as: UTF8.self)) else { throw .invalidData("not a UUID") }
            self = u
        default: throw .typeMismatch(type)
        }
    }
}

// MARK: - Optional (NULL)

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public static var postgresType: PostgresDataType { Wrapped.postgresType }
    public func encode(into buffer: inout [UInt8]) { self?.encode(into: &buffer) }
    public var isPostgresNull: Bool { self == nil }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        self = .some(try Wrapped(postgresBytes: bytes, type: type))
    }
    public static func postgresNull() throws(PostgresDecodingFailure) -> Self { nil }
}

// MARK: - Arrays (one dimension)

/// `[Element]` as a one-dimensional PostgreSQL array (for `= ANY($1)` and batch writes).
public struct PostgresArray<Element: PostgresArrayElement>: Sendable, PostgresEncodable, PostgresDecodable {
    public var elements: [Element?]
    public init(_ elements: [Element?]) { self.elements = elements }
    @inlinable public init(_ elements: [Element]) { self.elements = elements.map { $0 } }
    /// One element per value of `source`, in one array (no intermediate array of the elements).
    @inlinable public init<Source: Collection>(_ source: Source, _ element: (Source.Element) -> Element?) {
        elements = source.map(element)
    }

    public static var postgresType: PostgresDataType { Element.postgresArrayType }

    // Inlinable so the caller's module specializes it for its element type:
    // unspecialized, every call instantiated `Optional<Element>`'s metadata
    // and went through witness tables for each element (the relay's group
    // commit binds 16 arrays per batch).
    @inlinable public func encode(into buffer: inout [UInt8]) {
        var hasNull = false
        for e in elements where e?.isPostgresNull ?? true {
            hasNull = true
            break
        }
        appendBigEndian(Int32(1), to: &buffer)  // dimensions
        appendBigEndian(Int32(hasNull ? 1 : 0), to: &buffer)
        appendBigEndian(Element.postgresType.rawValue, to: &buffer)
        appendBigEndian(Int32(elements.count), to: &buffer)
        appendBigEndian(Int32(1), to: &buffer)  // lower bound
        for e in elements {
            guard let e, !e.isPostgresNull else { appendBigEndian(Int32(-1), to: &buffer); continue }
            // The element's length goes before it: reserve it, encode in place, then fill it in.
            let lengthAt = buffer.count
            appendBigEndian(Int32(0), to: &buffer)
            e.encode(into: &buffer)
            let length = Int32(truncatingIfNeeded: buffer.count - lengthAt - 4).bigEndian
            withUnsafeBytes(of: length) { bytes in
                for i in 0..<4 { buffer[lengthAt + i] = bytes[i] }
            }
        }
    }

    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        guard bytes.count >= 12 else { throw .invalidData("short array") }
        let dims = readBigEndian(Int32.self, bytes, at: 0)
        let elementType = PostgresDataType(readBigEndian(UInt32.self, bytes, at: 8))
        if dims == 0 { elements = []; return }
        guard dims == 1, bytes.count >= 20 else { throw .invalidData("only one-dimensional arrays are supported") }
        let count = Int(readBigEndian(Int32.self, bytes, at: 12))
        var offset = 20
        var out: [Element?] = []
        out.reserveCapacity(max(0, count))
        for _ in 0..<max(0, count) {
            guard offset + 4 <= bytes.count else { throw .invalidData("truncated array") }
            let len = Int(readBigEndian(Int32.self, bytes, at: offset))
            offset += 4
            if len < 0 { out.append(nil); continue }
            guard offset + len <= bytes.count else { throw .invalidData("truncated array element") }
            let start = bytes.startIndex + offset
            out.append(try Element(postgresBytes: bytes[start..<(start + len)], type: elementType))
            offset += len
        }
        elements = out
    }

    /// The elements, failing if any is NULL.
    public func nonNull() throws(PostgresDecodingFailure) -> [Element] {
        try elements.map { (e) throws(PostgresDecodingFailure) -> Element in
            guard let e else { throw .unexpectedNull }
            return e
        }
    }
}
