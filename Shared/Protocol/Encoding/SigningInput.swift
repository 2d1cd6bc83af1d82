/// Builds the length-prefixed byte strings that Mailwake signs and binds.
///
/// `lp(x) = u32be(len(x)) ‖ x` and `u64be(n)` are PROTOCOL.md §1.
public struct SigningInput: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// Appends `lp(x)`.
    public mutating func lp(_ x: [UInt8]) {
        appendU32(UInt32(x.count))
        bytes.append(contentsOf: x)
    }

    /// Appends `lp(utf8(s))`.
    public mutating func lp(_ s: String) {
        let utf8 = s.utf8
        appendU32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// Appends `lp(u64be(n))`.
    public mutating func lp(u64 n: UInt64) {
        appendU32(8)
        appendU64(n)
    }

    private mutating func appendU32(_ n: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: n >> 24))
        bytes.append(UInt8(truncatingIfNeeded: n >> 16))
        bytes.append(UInt8(truncatingIfNeeded: n >> 8))
        bytes.append(UInt8(truncatingIfNeeded: n))
    }

    private mutating func appendU64(_ n: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: n >> UInt64(shift)))
        }
    }
}
