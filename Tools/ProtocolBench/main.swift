import COpenSSLShims
import Foundation
import MailwakeCrypto
import MailwakeProtocol

// mailwake-protocol-bench: seal, open, relay envelope verification and request
// verification per second on one core, next to the OpenSSL primitives they
// use, measured in the same run. Prints one JSON document.
//
// usage: mailwake-protocol-bench [--seconds S] [--no-openssl-speed]

var seconds = 1.0
var useOpenSSLSpeed = true
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--seconds": seconds = Double(args.popFirst() ?? "") ?? seconds
    case "--no-openssl-speed": useOpenSSLSpeed = false
    case "--help":
        print("usage: mailwake-protocol-bench [--seconds S] [--no-openssl-speed]\nPrints JSON: protocol operations per second on one " +
              "core and their ratio to the OpenSSL primitives they use.")
        exit(0)
    default:
        FileHandle.standardError.write(Data("unknown argument \(a)\n".utf8))
        exit(2)
    }
}

let watch = Stopwatch(duration: seconds)
let outpost = try P256.Signing.PrivateKey()
let device = try P256.KeyAgreement.PrivateKey()
let deviceSigning = try P256.Signing.PrivateKey()
let pairingID = try PairingID.generate()
let aud = "https://push.example.net"
let content = NotificationContent(mailbox: "Work", folder: "INBOX", from: .init(name: "Alice Example", address: "alice@example.com"),
                                  subject: "Your verification code is 482913 — please do not share it", receivedAt: 1_764_400_000,
                                  code: "482913",
                                  ref: String(repeating: "r", count: 200))
let plaintext = content.jsonBytes
let context = EncryptionContext(aud: aud, pairingID: pairingID, eventID: try EventID.generate(), kind: .notification, iat: 1_764_400_000)
let sealer = EnvelopeSealer(identity: outpost)
let opener = EnvelopeOpener(agreementKey: device, outpostKey: outpost.publicKey, audience: aud, pairingID: pairingID)
let envelope = try sealer.seal(plaintext, to: device.publicKey, context: context)
let envelopeJSON = envelope.jsonBytes

// MARK: primitives, in process, through the same C bridge

let message = [UInt8](repeating: 0x5A, count: 300)
let signature = try outpost.signature(for: message)
let outpostPublic = outpost.publicKey
let peer = try P256.KeyAgreement.PrivateKey().publicKey
let salt = try SecureRandom.bytes(32), nonce = try SecureRandom.bytes(12)
let key = try SymmetricKey(randomByteCount: 32)
let info = [UInt8](repeating: 1, count: 230)
let ikm = try SecureRandom.bytes(32)

var primitives: [Stopwatch.Result] = []
primitives.append(watch.measure("p256_keygen") { _ = try! P256.KeyAgreement.PrivateKey() })
primitives.append(watch.measure("ecdsa_sign") { _ = try! outpost.signature(for: message) })
primitives.append(watch.measure("ecdsa_verify") { precondition(outpostPublic.isValidSignature(signature, for: message)) })
primitives.append(watch.measure("ecdh") { _ = try! device.sharedSecretFromKeyAgreement(with: peer) })
primitives.append(watch.measure("p256_public" +
                                "_import") { _ = try! P256.KeyAgreement.PublicKey(x963Representation: envelope.ephemeralPublicKey) })
primitives.append(watch.measure("hkdf_sha256_32") { _ = try! HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info,
                                                                            outputByteCount: 32) })
primitives.append(watch.measure("aes256gcm_seal_\(plaintext.count)") { _ = try! AESGCM.seal(plaintext, using: key, nonce: nonce,
                                                                                            authenticating: info) })
primitives.append(watch.measure("sha256_300") { _ = SHA256.hash(message) })
let byName = Dictionary(uniqueKeysWithValues: primitives.map { ($0.name, $0.microsecondsPerOp) })
func us(_ name: String) -> Double { byName[name] ?? byName.first { $0.key.hasPrefix(name) }!.value }

// MARK: protocol operations

var operations: [Stopwatch.Result] = []
operations.append(watch.measure("seal") { _ = try! sealer.seal(plaintext, to: device.publicKey, context: context) })
operations.append(watch.measure("open") { _ = try! opener.open(envelope) })
operations.append(watch.measure("verify_envelope") {
    let e = try! Envelope.decode(envelopeJSON)
    try! EnvelopeVerifier.verify(e, outpostKey: outpost.publicKey)
})
let signer = RequestSigner(key: deviceSigning)
let body = Array(#"{"pairing_id":"abcdefghijklmnopqrstuv","credential":"x"}"#.utf8)
let header = try signer.sign(method: "POST", origin: aud, pathAndQuery: "/v1/envelopes", body: body, timestamp: 1_764_400_000)
let headerValue = header.value
operations.append(watch.measure("verify_request") {
    let h = try! SignatureHeader.parse(headerValue)
    try! RequestVerifier.verify(h, method: "POST", origin: aud, pathAndQuery: "/v1/envelopes", body: body,
                                publicKey: deviceSigning.publicKey, now: 1_764_400_000)
})
operations.append(watch.measure("fit_notification") { _ = try! content.fitted(for: context) })
// The relay's per-envelope work besides the verify: the strict decode and the APNs payload it stores.
operations.append(watch.measure("decode_envelope") { _ = try! Envelope.decode(envelopeJSON) })
operations.append(watch.measure("apns_payload") { precondition(APNsPayload.build(for: envelope).count > envelopeJSON.count) })

// MARK: ratios

let speed = useOpenSSLSpeed ? OpenSSLSpeed.measure(seconds: max(1, Int(seconds.rounded()))) : OpenSSLSpeed()
func perOp(_ rate: Double?) -> Double? { rate.map { 1_000_000 / $0 } }
let aes = us("aes256gcm_seal")
let hkdf = us("hkdf_sha256_32")
// seal = ephemeral keygen + ECDH + HKDF + AES-GCM + SHA-256 and ECDSA sign of the signing input.
let sealPrimitivesInProcess = us("p256_keygen") + us("ecdh") + hkdf + aes + us("ecdsa_sign")
let sealPrimitivesSpeed = perOp(speed.ecdsaSignPerSecond)
    .flatMap { s in perOp(speed.ecdhPerSecond).map { s + $0 + us("p256_keygen") + hkdf + aes } }
// open = ECDSA verify + ECDH + HKDF + AES-GCM open.
let openPrimitivesInProcess = us("ecdsa_verify") + us("ecdh") + hkdf + aes
let openPrimitivesSpeed = perOp(speed.ecdsaVerifyPerSecond).flatMap { v in perOp(speed.ecdhPerSecond).map { v + $0 + hkdf + aes } }
let opUS = Dictionary(uniqueKeysWithValues: operations.map { ($0.name, $0.microsecondsPerOp) })

func rounded(_ x: Double, _ places: Double = 2) -> Double { (x * pow(10, places)).rounded() / pow(10, places) }

var report: [String: Any] = [
    "benchmark": "mailwake-protocol-bench",
    "threads": 1,
    "seconds_per_measurement": seconds,
    "plaintext_bytes": plaintext.count,
    "envelope_bytes": envelopeJSON.count,
    "openssl": String(cString: mw_openssl_version()),
    "primitives": primitives.map { ["name": $0.name, "ops_per_second": rounded($0.opsPerSecond, 0),
                                    "us_per_op": rounded($0.microsecondsPerOp)] },
    "operations": operations.map { ["name": $0.name, "ops_per_second": rounded($0.opsPerSecond, 0),
                                    "us_per_op": rounded($0.microsecondsPerOp)] },
    "ratios": [
        "seal_over_primitives_in_process": rounded(opUS["seal"]! / sealPrimitivesInProcess),
        "open_over_primitives_in_process": rounded(opUS["open"]! / openPrimitivesInProcess),
        "seal_over_primitives_openssl_speed": sealPrimitivesSpeed.map { rounded(opUS["seal"]! / $0) } as Any,
        "open_over_primitives_openssl_speed": openPrimitivesSpeed.map { rounded(opUS["open"]! / $0) } as Any,
        "target": "≤ 2 (DESIGN.md §6)",
    ],
    "openssl_speed": [
        "ecdsa_p256_sign_per_second": speed.ecdsaSignPerSecond as Any,
        "ecdsa_p256_verify_per_second": speed.ecdsaVerifyPerSecond as Any,
        "ecdh_p256_per_second": speed.ecdhPerSecond as Any,
    ],
]
let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
FileHandle.standardOutput.write(data + Data("\n".utf8))
