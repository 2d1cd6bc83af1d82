import MailwakeBenchKit
import MailwakeCrypto

/// One P-256 ECDSA verify, timed in the calling thread's CPU time, so other processes taking the core between
/// verifies do not inflate it as wall time would: with a parsed key and no table (`P256.Signing.PublicKey`, OpenSSL's
/// one-shot verify), the unit of the bench's ratios, or with the key's precomputed table, as the relay checks a busy
/// outpost's envelopes.
struct VerifyProbe: Sendable {
    private let verifier: any P256.Signing.SignatureVerifier
    private let signature: P256.Signing.ECDSASignature
    private let message = Array("mailwake relay bench".utf8)

    /// - Parameter precomputed: verify with the key's precomputed table (built here, about 20 ms) instead of the
    ///   key alone.
    init(precomputed: Bool = false) {
        let key = try! P256.Signing.PrivateKey()
        signature = try! key.signature(for: message)
        let publicKey = try! P256.Signing.PublicKey(x963Representation: key.publicKey.x963Representation)
        verifier = precomputed ? try! P256.Signing.PrecomputedPublicKey(publicKey) : publicKey
    }

    /// CPU microseconds per verify over `count` verifies.
    func cpuMicrosPerVerify(count: Int) -> Double {
        let t0 = BenchSystem.threadCPUSeconds()
        var ok = 0
        for _ in 0..<count where verifier.isValidSignature(signature, for: message) { ok += 1 }
        precondition(ok == count)
        return (BenchSystem.threadCPUSeconds() - t0) * 1e6 / Double(count)
    }
}
