import COpenSSLShims

/// SHA-256 (FIPS 180-4).
public struct SHA256: ~Copyable {
    /// A 32-byte SHA-256 digest.
    public struct Digest: Sendable, Hashable {
        /// The 32 digest bytes.
        public let bytes: [UInt8]

        /// Wraps 32 digest bytes.
        public init(bytes: [UInt8]) throws(CryptoError) {
            guard bytes.count == 32 else { throw CryptoError(.invalidLength, "a SHA-256 digest is 32 bytes") }
            self.bytes = bytes
        }

        init(unchecked bytes: [UInt8]) { self.bytes = bytes }

        /// Lower-case hexadecimal.
        public var hex: String { bytes.map { String(format: "%02x", $0) }.joined() }
    }

    /// The digest of `data`.
    public static func hash(_ data: [UInt8]) -> Digest {
        var out = [UInt8](repeating: 0, count: 32)
        let rc = data.withUnsafeBufferPointer { d in
            out.withUnsafeMutableBufferPointer { mw_sha256(d.baseAddress, d.count, $0.baseAddress) }
        }
        precondition(rc == 1, "SHA-256 failed: OpenSSL could not be initialised")
        return Digest(unchecked: out)
    }

    /// The digest of `data` given as raw bytes.
    public static func hash(_ data: UnsafeRawBufferPointer) -> Digest {
        var out = [UInt8](repeating: 0, count: 32)
        let rc = out.withUnsafeMutableBufferPointer {
            mw_sha256(data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count, $0.baseAddress)
        }
        precondition(rc == 1, "SHA-256 failed: OpenSSL could not be initialised")
        return Digest(unchecked: out)
    }

    private let ctx: OpaquePointer

    /// Starts an incremental hash.
    public init() {
        guard let c = mw_sha256_new() else { fatalError("SHA-256 context allocation failed") }
        ctx = c
    }

    deinit { mw_sha256_free(ctx) }

    /// Feeds more bytes.
    public mutating func update(_ data: [UInt8]) {
        let rc = data.withUnsafeBufferPointer { mw_sha256_update(ctx, $0.baseAddress, $0.count) }
        precondition(rc == 1, "SHA-256 update failed")
    }

    /// Ends the hash and returns the digest.
    public consuming func finalize() -> Digest {
        var out = [UInt8](repeating: 0, count: 32)
        let rc = out.withUnsafeMutableBufferPointer { mw_sha256_final(ctx, $0.baseAddress) }
        precondition(rc == 1, "SHA-256 final failed")
        return Digest(unchecked: out)
    }
}
