import Foundation
import MailwakeCrypto
import TestSupport
import Testing

/// Published vectors (Wycheproof, RFC 5869, RFC 9180) stored under Fixtures/
/// with their source and licence.
@Suite("Published test vectors")
struct PublishedVectorTests {
    typealias JSON = [String: Any]

    static func cases(_ file: String) throws -> [[String: Any]] {
        let doc = try RepositoryPaths.json("Tests/CryptoTests/Fixtures/\(file)")
        guard doc["source"] is String, doc["license"] is String, let cases = doc["cases"] as? [JSON], !cases.isEmpty else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return cases
    }

    static func hex(_ c: JSON, _ key: String) -> [UInt8] { Hex.decode(c[key] as! String) }

    /// The same vectors for the key alone and for the key with its precomputed table.
    @Test(arguments: [false, true])
    func wycheproofECDSAP256P1363(precomputed: Bool) throws {
        let cases = try Self.cases("wycheproof-ecdsa-p256-sha256-p1363.json")
        var valid = 0, invalid = 0
        var tables: [P256.Signing.PublicKey: P256.Signing.PrecomputedPublicKey] = [:]
        for c in cases {
            let id = c["tcId"] as! Int
            let key = try P256.Signing.PublicKey(x963Representation: Self.hex(c, "public_key_x963"))
            var verifier: any P256.Signing.SignatureVerifier = key
            if precomputed {
                if tables[key] == nil { tables[key] = try P256.Signing.PrecomputedPublicKey(key) }
                verifier = tables[key]!
            }
            let accepted = (try? P256.Signing.ECDSASignature(rawRepresentation: Self.hex(c, "sig")))
                .map { verifier.isValidSignature($0, for: Self.hex(c, "msg")) } ?? false
            switch c["result"] as! String {
            case "valid":
                #expect(accepted, "tcId \(id) \(c["comment"] ?? "")")
                valid += 1
            case "invalid":
                #expect(!accepted, "tcId \(id) \(c["comment"] ?? "")")
                invalid += 1
            default:
                break
            }
        }
        #expect(valid > 10 && invalid > 10)
        #expect(!precomputed || tables.count > 10)
    }

    @Test func wycheproofECDHP256() throws {
        for c in try Self.cases("wycheproof-ecdh-p256.json") {
            let id = c["tcId"] as! Int
            let priv = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.hex(c, "private"))
            let peer = try? P256.KeyAgreement.PublicKey(x963Representation: Self.hex(c, "public_x963"))
            if c["result"] as! String == "valid" {
                let shared = try #require(peer, "tcId \(id): a valid public key was refused")
                #expect(try priv.sharedSecretFromKeyAgreement(with: shared).rawBytesForTesting == Self.hex(c, "shared"), "tcId \(id)")
            } else {
                // Invalid points, and compressed encodings ("acceptable" in Wycheproof) that this API does not take.
                #expect(peer == nil, "tcId \(id) \(c["comment"] ?? "") should be refused")
            }
        }
    }

    @Test func wycheproofAES256GCM() throws {
        for c in try Self.cases("wycheproof-aes-gcm-256.json") {
            let id = c["tcId"] as! Int
            let key = SymmetricKey(bytes: Self.hex(c, "key"))
            let iv = Self.hex(c, "iv"), aad = Self.hex(c, "aad"), msg = Self.hex(c, "msg")
            let sealed = Self.hex(c, "ct") + Self.hex(c, "tag")
            if c["result"] as! String == "valid" {
                #expect(try AESGCM.seal(msg, using: key, nonce: iv, authenticating: aad) == sealed, "tcId \(id)")
                #expect(try AESGCM.open(sealed, using: key, nonce: iv, authenticating: aad) == msg, "tcId \(id)")
            } else {
                #expect(throws: CryptoError.self, "tcId \(id)") { try AESGCM.open(sealed, using: key, nonce: iv, authenticating: aad) }
            }
        }
    }

    @Test func rfc5869HKDFSHA256() throws {
        for c in try Self.cases("rfc5869-hkdf-sha256.json") {
            let okm = try HKDF.deriveKey(inputKeyMaterial: Self.hex(c, "ikm"), salt: Self.hex(c, "salt"), info: Self.hex(c, "info"),
                                         outputByteCount: c["L"] as! Int)
            #expect(okm.rawBytes == Self.hex(c, "okm"), "\(c["name"] ?? "")")
            // Extract alone is HMAC(salt, IKM).
            #expect(HMACSHA256.authenticationCode(for: Self.hex(c, "ikm"), key: Self.hex(c, "salt")) == Self.hex(c, "prk"))
        }
    }

    /// RFC 9180 §4.1 DHKEM(P-256, HKDF-SHA256): our ECDH, SHA-256 HMAC and key
    /// import reproduce the published KEM shared secrets in all four modes.
    @Test func rfc9180DHKEMP256SharedSecrets() throws {
        let suiteID: [UInt8] = Array("KEM".utf8) + [0x00, 0x10]
        func labeledExtract(_ label: String, _ ikm: [UInt8]) -> [UInt8] {
            HMACSHA256.authenticationCode(for: Array("HPKE-v1".utf8) + suiteID + Array(label.utf8) + ikm, key: [])
        }
        func labeledExpand32(_ prk: [UInt8], _ label: String, _ info: [UInt8]) -> [UInt8] {
            HMACSHA256.authenticationCode(for: [0x00, 0x20] + Array("HPKE-v1".utf8) + suiteID + Array(label.utf8) + info + [0x01],
                                          key: prk)
        }
        for c in try Self.cases("rfc9180-a3-dhkem-p256.json") {
            let section = c["section"] as! String
            let skE = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.hex(c, "skEm"))
            let skR = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.hex(c, "skRm"))
            #expect(skE.publicKey.x963Representation == Self.hex(c, "pkEm"), "\(section) pkEm")
            #expect(skR.publicKey.x963Representation == Self.hex(c, "pkRm"), "\(section) pkRm")
            #expect(Self.hex(c, "enc") == Self.hex(c, "pkEm"))
            let pkR = try P256.KeyAgreement.PublicKey(x963Representation: Self.hex(c, "pkRm"))
            var dh = try skE.sharedSecretFromKeyAgreement(with: pkR).rawBytesForTesting
            var kemContext = Self.hex(c, "enc") + Self.hex(c, "pkRm")
            if c["skSm"] != nil {
                let skS = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.hex(c, "skSm"))
                #expect(skS.publicKey.x963Representation == Self.hex(c, "pkSm"), "\(section) pkSm")
                dh += try skS.sharedSecretFromKeyAgreement(with: pkR).rawBytesForTesting
                kemContext += Self.hex(c, "pkSm")
            }
            let shared = labeledExpand32(labeledExtract("eae_prk", dh), "shared_secret", kemContext)
            #expect(shared == Self.hex(c, "shared_secret"), "\(section)")
        }
    }
}
