import COpenSSLShims

extension P256.Signing {
    /// A public key with a table of its multiples, for verifying many signatures under it.
    ///
    /// A verify with the table costs under a third of `PublicKey.isValidSignature`; building the table takes about
    /// 2.2 ms of CPU (about a hundred verifies' worth) and it holds 264 KiB, so it pays only for a key that verifies many
    /// signatures. It accepts and refuses exactly what `PublicKey` does.
    public final class PrecomputedPublicKey: SignatureVerifier, @unchecked Sendable {
        // @unchecked Sendable is safe because the table is only read after `init` (a verify keeps its arithmetic on
        // its own stack), and it is freed in `deinit`, when no verify can be running.
        private let table: OpaquePointer
        /// The key the table was built for.
        public let publicKey: PublicKey

        /// Builds the table for `publicKey` (about 2.2 ms of CPU: call it off latency-sensitive threads).
        public init(_ publicKey: PublicKey) throws(CryptoError) {
            let built = publicKey.x963Representation.withUnsafeBufferPointer { mw_p256_table_new($0.baseAddress, $0.count) }
            guard let built else { throw CryptoError(.internalFailure, "could not precompute the P-256 key's table") }
            table = built
            self.publicKey = publicKey
        }

        deinit { mw_p256_table_free(table) }

        /// Whether `signature` is a valid signature of SHA-256(`message`).
        public func isValidSignature(_ signature: ECDSASignature, for message: [UInt8]) -> Bool {
            let rc = message.withUnsafeBufferPointer { m in
                signature.rawRepresentation.withUnsafeBufferPointer { s in
                    mw_p256_table_verify(table, m.baseAddress, m.count, s.baseAddress, s.count)
                }
            }
            return rc == 1
        }

        /// Whether `signature` is valid for an already computed SHA-256 digest.
        public func isValidSignature(_ signature: ECDSASignature, forDigest digest: SHA256.Digest) -> Bool {
            let rc = digest.bytes.withUnsafeBufferPointer { d in
                signature.rawRepresentation.withUnsafeBufferPointer { s in
                    mw_p256_table_verify_digest(table, d.baseAddress, s.baseAddress, s.count)
                }
            }
            return rc == 1
        }

        /// How many of `rounds` values (edge values, then pseudo-random from `seed`) the table's inverse modulo the
        /// P-256 order gets differently from OpenSSL's `BN_mod_inverse`; -1 on an internal error. For tests.
        static func orderInverseMismatches(seed: UInt64, rounds: Int32) -> Int32 {
            mw_p256_order_inverse_check(seed, rounds)
        }

        /// How many of `rounds` products (edge values, then pseudo-random from `seed`) the table's Montgomery
        /// multiplication modulo the P-256 order and field prime gets differently from OpenSSL's `BN_mod_mul`; -1 on
        /// an internal error. For tests.
        static func montgomeryMismatches(seed: UInt64, rounds: Int32) -> Int32 {
            mw_p256_montgomery_check(seed, rounds)
        }

        /// How many of `rounds` sums a G + b Q (keys G, -G, 2G and three pseudo-random ones; edge scalars, a = b,
        /// then pseudo-random from `seed`) the tables get differently from OpenSSL's `EC_POINT_mul`, counting the
        /// field products modulo p that differ from the generic Montgomery product too; -1 on an internal error.
        /// For tests.
        static func multiplicationMismatches(seed: UInt64, rounds: Int32) -> Int32 {
            mw_p256_multiplication_check(seed, rounds)
        }

        /// How many answers differ from the expected ones, for the table or for the key alone, over `rounds` rounds of
        /// signatures built to take every range check and both branches of the final comparison (r + n and s + n,
        /// x(R) at least n, small x(R) with r = x + p - n and x + 2^256 - n, a sum at infinity, flipped bits;
        /// pseudo-random from `seed`); -1 on an internal error. For tests.
        static func verifyMismatches(seed: UInt64, rounds: Int32) -> Int32 {
            mw_p256_verify_check(seed, rounds)
        }
    }
}
