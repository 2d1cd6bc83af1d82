import MailwakeBenchKit
import MailwakeCrypto

/// One P-256 ECDSA verify with a parsed key and no table (`P256.Signing.PublicKey`, OpenSSL's one-shot verify),
/// the unit of the bench's ratios; and the same verify with the key's precomputed table, as the relay checks a busy
/// outpost's envelopes. Timed in the calling thread's CPU time, so other processes taking the core between verifies
/// do not inflate it as wall time would.
struct VerifyProbe: Sendable {
    private let publicKey: P256.Signing.PublicKey
    private let table: P256.Signing.PrecomputedPublicKey
    private let signature: P256.Signing.ECDSASignature
    private let message = Array("mailwake relay bench".utf8)

    init() {
        let key = try! P256.Signing.PrivateKey()
        signature = try! key.signature(for: message)
        publicKey = try! P256.Signing.PublicKey(x963Representation: key.publicKey.x963Representation)
        table = try! P256.Signing.PrecomputedPublicKey(publicKey)
    }

    /// CPU microseconds per verify over `count` verifies, with the key alone (the ratios' unit).
    func cpuMicrosPerVerify(count: Int) -> Double { cpuMicros(count: count, with: publicKey) }

    /// CPU microseconds per verify over `count` verifies, with the key's precomputed table.
    func cpuMicrosPerVerifyWithTable(count: Int) -> Double { cpuMicros(count: count, with: table) }

    private func cpuMicros(count: Int, with verifier: some P256.Signing.SignatureVerifier) -> Double {
        let t0 = BenchSystem.threadCPUSeconds()
        var ok = 0
        for _ in 0..<count where verifier.isValidSignature(signature, for: message) { ok += 1 }
        precondition(ok == count)
        return (BenchSystem.threadCPUSeconds() - t0) * 1e6 / Double(count)
    }
}
