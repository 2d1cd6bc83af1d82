/// A secret symmetric key whose bytes are wiped when the last copy goes.
public struct SymmetricKey: Sendable {
    let storage: SecureBytes

    /// Wraps existing key bytes (the caller's array is wiped).
    public init(bytes: [UInt8]) {
        var copy = bytes
        storage = SecureBytes(consuming: &copy)
    }

    /// Takes ownership of `bytes` and wipes the caller's array.
    init(consuming bytes: inout [UInt8]) {
        storage = SecureBytes(consuming: &bytes)
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

    /// A copy of the key bytes, for test vectors and key storage code only.
    public var rawBytes: [UInt8] { storage.copyBytes() }
}
