import Foundation
import MailwakeCrypto
import Testing

/// The X.509 root store and DER checks behind App Store chain verification
/// (the full chains are in AppStoreTests).
@Suite("X.509 trusted roots and DER checks")
struct TrustedRootsTests {
    static func selfSigned() throws -> (der: [UInt8], key: P256.Signing.PrivateKey) {
        let (certificate, keyPEM) = try ServerCertificate.selfSigned(commonName: "root test", subjectAltNames: ["root.example"], days: 30)
        return (try PEM.decode(certificate.certificatePEM, label: "CERTIFICATE"), try P256.Signing.PrivateKey(pemRepresentation: keyPEM))
    }

    @Test func aMalformedRootIsRefusedByItsIndex() throws {
        let good = try Self.selfSigned().der
        do {
            _ = try TrustedRoots(der: [good, Array(good.dropLast())])
            Issue.record("accepted a truncated root")
        } catch {
            #expect(error.code == .invalidEncoding)
            #expect(error.message == "trusted root #1 is not a DER X.509 certificate")
        }
    }

    @Test func anEmptyStoreTrustsNothingAndMalformedChainsAreNil() throws {
        let der = try Self.selfSigned().der
        let roots = try TrustedRoots(der: [])
        let now = Int64(Date().timeIntervalSince1970)
        guard case .untrusted? = roots.verify(leaf: der, intermediate: der, atSeconds: now) else {
            Issue.record("an empty store trusted a chain")
            return
        }
        #expect(roots.verify(leaf: [0x30, 0x00], intermediate: der, atSeconds: now) == nil)
    }

    @Test func derChecksReadTheCertificate() throws {
        let (der, key) = try Self.selfSigned()
        #expect(X509DER.isCertificate(der))
        #expect(!X509DER.isCertificate(der + [0]))
        #expect(X509DER.p256PublicKey(der) == key.publicKey.x963Representation)
        #expect(X509DER.hasExtension(der, oid: "2.5.29.17") == true)   // subjectAltName
        #expect(X509DER.hasExtension(der, oid: "1.2.840.113635.100.6.11.1") == false)
        #expect(X509DER.hasExtension([0x30, 0x00], oid: "2.5.29.17") == nil)
    }
}
