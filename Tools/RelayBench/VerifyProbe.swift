import MailwakeBenchKit
import MailwakeCrypto

/// One P-256 ECDSA verify as the relay does it (the same key type and call),
/// timed in the calling thread's CPU time, so other processes taking the core
/// between verifies do not inflate it as wall time would.
struct VerifyProbe: Sendable {
    private let publicKey: P256.Signing.PublicKey
    private let signature: P256.Signing.ECDSASignature
    private let message = Array("mailwake relay bench".utf8)

    init() {
        let key = try! P256.Signing.PrivateKey()
        signature = try! key.signature(for: message)
        publicKey = try! P256.Signing.PublicKey(x963Representation: key.publicKey.x963Representation)
    }

    /// CPU microseconds per verify over `count` verifies.
    func cpuMicrosPerVerify(count: Int) -> Double {
        let t0 = BenchSystem.threadCPUSeconds()
        var ok = 0
        for _ in 0..<count where publicKey.isValidSignature(signature, for: message) { ok += 1 }
        precondition(ok == count)
        return (BenchSystem.threadCPUSeconds() - t0) * 1e6 / Double(count)
    }
}
