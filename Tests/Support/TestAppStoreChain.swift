public import Foundation

/// A throwaway App Store-like certificate chain made with the `openssl`
/// command: a root CA (P-384, like Apple Root CA - G3), an intermediate
/// carrying Apple's WWDR marker extension 1.2.840.113635.100.6.2.1 and a
/// P-256 leaf carrying the receipt-signing marker 1.2.840.113635.100.6.11.1,
/// both as non-critical `ASN1:NULL` extensions, each with its own validity
/// window. Nothing is fetched; the files `openssl` needs live in a temporary
/// directory removed before `make` returns (the chain is kept in memory).
///
/// TestSupport does not link MailwakeCrypto, so signing is done by the
/// caller: `TestJWS.compact(..., sign:)` takes a closure returning the raw
/// 64-byte `r‖s` signature (tests use `P256.Signing.PrivateKey(pemRepresentation: leafKeyPEM)`).
public struct TestAppStoreChain: Sendable {
    /// A certificate validity window (whole seconds; `openssl ca` dates are UTC).
    public struct Validity: Sendable {
        public var notBefore: Date
        public var notAfter: Date
        public init(notBefore: Date, notAfter: Date) {
            self.notBefore = notBefore
            self.notAfter = notAfter
        }

        /// From `before` ago to `after` from `now`.
        public static func around(_ now: Date = Date(), before: TimeInterval = 86_400, after: TimeInterval = 86_400) -> Validity {
            Validity(notBefore: now.addingTimeInterval(-before), notAfter: now.addingTimeInterval(after))
        }
    }

    /// What to generate.
    public struct Options: Sendable {
        public var rootValidity: Validity = .around(before: 365 * 86_400, after: 365 * 86_400)
        public var intermediateValidity: Validity = .around(before: 180 * 86_400, after: 180 * 86_400)
        public var leafValidity: Validity = .around(before: 30 * 86_400, after: 30 * 86_400)
        /// Whether the intermediate carries 1.2.840.113635.100.6.2.1.
        public var intermediateOID = true
        /// Whether the leaf carries 1.2.840.113635.100.6.11.1.
        public var leafOID = true
        /// The leaf key's curve as `openssl genpkey` names it (`P-256`, `P-384`).
        public var leafCurve = "P-256"
        /// Common-name prefix, to tell chains apart in failures.
        public var name = "Mailwake Test"
        public init() {}
    }

    public let rootDER: [UInt8]
    public let intermediateDER: [UInt8]
    public let leafDER: [UInt8]
    /// The leaf's private key, PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    public let leafKeyPEM: String

    /// The `x5c` header value: leaf, intermediate and `sentRoot` (default:
    /// this chain's root), standard base64 with padding.
    public func x5c(sentRoot: [UInt8]? = nil) -> [String] {
        [leafDER, intermediateDER, sentRoot ?? rootDER].map { Data($0).base64EncodedString() }
    }

    /// Generates a chain.
    public static func make(_ options: Options = Options()) throws -> TestAppStoreChain {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-appstore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = { (name: String) in dir.appendingPathComponent(name).path }
        let config = """
            [ ca ]
            default_ca = test_ca
            [ test_ca ]
            database = \(p("index.txt"))
            new_certs_dir = \(dir.path)
            serial = \(p("serial"))
            default_md = sha384
            policy = policy_any
            unique_subject = no
            copy_extensions = none
            email_in_dn = no
            [ policy_any ]
            commonName = supplied
            organizationName = optional
            [ req ]
            distinguished_name = dn
            prompt = no
            [ dn ]
            CN = unused
            [ v3_root ]
            basicConstraints = critical,CA:TRUE
            keyUsage = critical,keyCertSign,cRLSign
            subjectKeyIdentifier = hash
            [ v3_intermediate ]
            basicConstraints = critical,CA:TRUE,pathlen:0
            keyUsage = critical,keyCertSign,cRLSign
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid:always
            \(options.intermediateOID ? "1.2.840.113635.100.6.2.1 = ASN1:NULL" : "")
            [ v3_leaf ]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid:always
            \(options.leafOID ? "1.2.840.113635.100.6.11.1 = ASN1:NULL" : "")

            """
        try config.write(toFile: p("ca.cnf"), atomically: true, encoding: .utf8)
        try "".write(toFile: p("index.txt"), atomically: true, encoding: .utf8)
        try "01\n".write(toFile: p("serial"), atomically: true, encoding: .utf8)

        func sign(csr: String, out: String, extensions: String, validity: Validity, caCert: String?, caKey: String) throws {
            var args = ["ca", "-batch", "-config", p("ca.cnf"), "-notext", "-in", p(csr), "-out", p(out),
                        "-extensions", extensions, "-keyfile", p(caKey),
                        "-startdate", stamp(validity.notBefore), "-enddate", stamp(validity.notAfter)]
            if let caCert { args += ["-cert", p(caCert)] } else { args += ["-selfsign"] }
            try TestCertificates.openssl(args)
        }
        // Root: P-384, self-signed.
        try TestCertificates.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", p("root.key")])
        try TestCertificates.openssl(["req", "-new", "-config", p("ca.cnf"), "-key", p("root.key"), "-subj",
                                      "/CN=\(options.name) Root CA/O=Mailwake Tests", "-out", p("root.csr")])
        try sign(csr: "root.csr", out: "root.pem", extensions: "v3_root", validity: options.rootValidity, caCert: nil, caKey: "root.key")
        // Intermediate: P-384, signed by the root.
        try TestCertificates.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", p("intermediate.key")])
        try TestCertificates.openssl(["req", "-new", "-config", p("ca.cnf"), "-key", p("intermediate.key"), "-subj",
                                      "/CN=\(options.name) WWDR CA/O=Mailwake Tests", "-out", p("intermediate.csr")])
        try sign(csr: "intermediate.csr", out: "intermediate.pem", extensions: "v3_intermediate", validity: options.intermediateValidity,
                 caCert: "root.pem", caKey: "root.key")
        // Leaf: P-256 (or the requested curve), signed by the intermediate.
        try TestCertificates.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(options.leafCurve)", "-out",
                                      p("leaf.key")])
        try TestCertificates.openssl(["req", "-new", "-config", p("ca.cnf"), "-key", p("leaf.key"), "-subj",
                                      "/CN=\(options.name) Receipt Signing/O=Mailwake Tests", "-out", p("leaf.csr")])
        try sign(csr: "leaf.csr", out: "leaf.pem", extensions: "v3_leaf", validity: options.leafValidity, caCert: "intermediate.pem",
                 caKey: "intermediate.key")

        func der(_ pem: String) throws -> [UInt8] {
            try TestCertificates.openssl(["x509", "-in", p(pem), "-outform", "DER", "-out", p(pem + ".der")])
            return Array(try Data(contentsOf: URL(fileURLWithPath: p(pem + ".der"))))
        }
        return TestAppStoreChain(
            rootDER: try der("root.pem"), intermediateDER: try der("intermediate.pem"), leafDER: try der("leaf.pem"),
            leafKeyPEM: try String(contentsOfFile: p("leaf.key"), encoding: .utf8))
    }

    /// Deletes the files.

    /// `YYYYMMDDHHMMSSZ` in UTC, as `openssl ca -startdate` wants.
    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        return formatter.string(from: date)
    }
}

/// Builds compact JWS strings for App Store tests.
public enum TestJWS {
    /// Base64url without padding.
    public static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Serializes a JSON object with sorted keys.
    public static func json(_ object: [String: any Sendable]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// `base64url(header).base64url(payload).base64url(sign(ASCII of the first two))`.
    public static func compact(headerJSON: [UInt8], payloadJSON: [UInt8], sign: ([UInt8]) throws -> [UInt8]) throws -> String {
        let input = base64url(headerJSON) + "." + base64url(payloadJSON)
        return input + "." + base64url(try sign(Array(input.utf8)))
    }

    /// An ES256 JWS with `x5c`, over a JSON payload.
    public static func compact(x5c: [String]?, alg: String = "ES256", payload: [String: any Sendable],
                               sign: ([UInt8]) throws -> [UInt8]) throws -> String {
        var header: [String: any Sendable] = ["alg": alg]
        if let x5c { header["x5c"] = x5c }
        return try compact(headerJSON: try json(header), payloadJSON: try json(payload), sign: sign)
    }

    /// Milliseconds since 1970, as Apple sends dates.
    public static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}
