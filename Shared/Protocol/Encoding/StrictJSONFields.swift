extension StrictJSON {
    /// The fields of one parsed JSON object, read strictly.
    ///
    /// The direct counterpart of a `Decodable` type that calls
    /// `rejectUnknownKeys`: unknown keys are refused on creation, and a
    /// missing, null or mistyped field is `malformed`, named by its path.
    public struct Fields: Sendable {
        private let members: [Member]
        private let path: String

        /// - Parameters:
        ///   - value: the object.
        ///   - allowed: the keys it may hold.
        ///   - type: its name in errors ("envelope").
        ///   - path: where it sits in its document, "" at the top level.
        public init(_ value: Value, allowed: [String], in type: String, path: String = "") throws(ProtocolError) {
            guard case .object(let members) = value else {
                throw .malformed("wrong type at \(path.isEmpty ? "the top level" : path)")
            }
            for member in members where !allowed.contains(where: { member.key.isUTF8(of: $0) }) {
                throw .malformed("unknown field \(String(decoding: member.key, as: UTF8.self)) in \(type)")
            }
            self.members = members
            self.path = path
        }

        private func name(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

        /// The value of `key`, or nil when absent or null.
        public func optional(_ key: String) -> Value? {
            guard let member = members.first(where: { $0.key.isUTF8(of: key) }), member.value != .null else { return nil }
            return member.value
        }

        private func required(_ key: String) throws(ProtocolError) -> Value {
            guard let member = members.first(where: { $0.key.isUTF8(of: key) }) else { throw .malformed("missing field " +
                "\(name(key))") }
            guard member.value != .null else { throw .malformed("null at \(name(key))") }
            return member.value
        }

        /// The UTF-8 bytes of a string field.
        public func stringBytes(_ key: String) throws(ProtocolError) -> ArraySlice<UInt8> {
            try stringBytes(of: required(key), key)
        }

        /// A string of at most `maxBytes` UTF-8 bytes.
        public func string(_ key: String, maxBytes: Int, allowEmpty: Bool = false) throws(ProtocolError) -> String {
            try Self.string(stringBytes(key), key, maxBytes: maxBytes, allowEmpty: allowEmpty)
        }

        /// A string of at most `maxBytes` UTF-8 bytes, or nil when absent or null.
        public func optionalString(_ key: String, maxBytes: Int, allowEmpty: Bool = false) throws(ProtocolError) -> String? {
            guard let value = optional(key) else { return nil }
            return try Self.string(stringBytes(of: value, key), key, maxBytes: maxBytes, allowEmpty: allowEmpty)
        }

        /// The bytes of `value`, the field `key`, which must be a string.
        private func stringBytes(of value: Value, _ key: String) throws(ProtocolError) -> ArraySlice<UInt8> {
            guard case .string(let bytes) = value else { throw .malformed("wrong type at \(name(key))") }
            return bytes
        }

        /// `bytes` as the string field `key`, checked as `string(_:maxBytes:allowEmpty:)` says.
        private static func string(_ bytes: ArraySlice<UInt8>, _ key: String, maxBytes: Int, allowEmpty: Bool) throws(ProtocolError)
            -> String {
            guard bytes.count <= maxBytes else { throw ProtocolError(.tooLarge, "\(key) is longer than \(maxBytes) bytes") }
            guard allowEmpty || !bytes.isEmpty else { throw .malformed("\(key) is empty") }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// The elements of an array field.
        public func array(_ key: String) throws(ProtocolError) -> [Value] {
            guard case .array(let elements) = try required(key) else { throw .malformed("wrong type at \(name(key))") }
            return elements
        }

        /// An integer that fits `Int64` (no fraction or exponent).
        public func int64(_ key: String) throws(ProtocolError) -> Int64 {
            guard case .number(let text) = try required(key) else { throw .malformed("wrong type at \(name(key))") }
            guard let value = Self.integer(text) else { throw .malformed("invalid value at \(name(key)): not an integer that fits " +
                                                                         "64 bits") }
            return value
        }

        /// A non-negative integer timestamp or counter.
        public func unsigned(_ key: String) throws(ProtocolError) -> UInt64 {
            let value = try int64(key)
            guard value >= 0 else { throw .malformed("\(key) must not be negative") }
            return UInt64(value)
        }

        /// A base64url field of exactly `count` bytes.
        public func base64URL(_ key: String, count: Int) throws(ProtocolError) -> [UInt8] {
            try Base64URL.decode(stringBytes(key), field: key, count: count)
        }

        /// A base64url field whose length lies in `range`.
        public func base64URL(_ key: String, range: ClosedRange<Int>) throws(ProtocolError) -> [UInt8] {
            try Base64URL.decode(stringBytes(key), field: key, range: range)
        }

        /// The fields of a nested object, or nil when absent or null.
        public func object(_ key: String, allowed: [String], in type: String) throws(ProtocolError) -> Fields? {
            guard let value = optional(key) else { return nil }
            return try Fields(value, allowed: allowed, in: type, path: name(key))
        }

        /// Parses `-?[0-9]+` into an `Int64`, nil on anything else or overflow.
        static func integer(_ text: some Collection<UInt8>) -> Int64? {
            let negative = text.first == UInt8(ascii: "-")
            let digits = text.dropFirst(negative ? 1 : 0)
            guard !digits.isEmpty else { return nil }
            var magnitude: UInt64 = 0
            for c in digits {
                let d = c &- UInt8(ascii: "0")
                guard d <= 9 else { return nil }
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(d))
                guard !o1, !o2 else { return nil }
                magnitude = sum
            }
            if negative {
                guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
                return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
            }
            guard magnitude <= UInt64(Int64.max) else { return nil }
            return Int64(magnitude)
        }
    }
}
