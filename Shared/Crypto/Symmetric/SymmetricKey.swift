/// A secret symmetric key whose bytes are wiped when the last copy goes.
///
/// The key lives in one heap buffer of its own (`SecureBytes`), zeroed
/// before it is freed; copies of a `SymmetricKey` share that buffer. The
/// initialisers say what becomes of the bytes they are given.
public struct SymmetricKey: Sendable {
    let storage: SecureBytes

    /// Copies `bytes` into wiped storage; the caller's array is left as it is.
    ///
    /// A Swift array passed by value cannot be wiped on the caller's behalf:
    /// it stays in memory until the caller's last copy goes, unwiped. For key
    /// material the caller holds in a variable, use `init(wiping:)`; better,
    /// never hold it in an array (`init(randomByteCount:)`, HKDF, or
    /// `init(byteCount:fill:)` to read it straight into the key's buffer).
    public init(bytes: [UInt8]) {
        storage = bytes.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    /// Takes `bytes` and zeroes the caller's array (its length stays).
    ///
    /// Only the array's own buffer is zeroed: another array that still
    /// shared that storage (Swift arrays are copy-on-write) keeps the bytes.
    public init(wiping bytes: inout [UInt8]) {
        storage = SecureBytes(consuming: &bytes)
    }

    /// A key of `byteCount` bytes written in place by `fill` (reading a key
    /// file, for example), so they are never in an ordinary array.
    public init<E: Error>(byteCount: Int, fill: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        storage = try SecureBytes(count: byteCount, fill: fill)
    }

    /// Generates a random key of `byteCount` bytes.
    public init(randomByteCount byteCount: Int) throws(CryptoError) {
        var bytes = try SecureRandom.bytes(byteCount)
        storage = SecureBytes(consuming: &bytes)
    }

    /// The key length in bytes.
    public var byteCount: Int { storage.count }

    /// Calls `body` with the key bytes; do not let the pointer escape.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try storage.withUnsafeBytes(body)
    }

    /// A copy of the key bytes in an ordinary (never wiped) array, for test vectors only.
    public var rawBytes: [UInt8] { storage.copyBytes() }
}
