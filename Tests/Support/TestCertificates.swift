public import Foundation

/// A throwaway certificate authority and server certificate made with the
/// `openssl` command, for tests that need real TLS on loopback.
///
/// Keys are P-256; the server certificate is valid for `localhost`,
/// `127.0.0.1` and `::1`. Files live in a temporary directory removed by
/// `remove()`.
public struct TestCertificates: Sendable {
    public let directory: URL
    /// CA certificate (PEM): what clients trust.
    public let caCertificate: URL
    /// Server certificate (PEM) signed by the CA.
    public let serverCertificate: URL
    /// Server private key (PEM, PKCS#8).
    public let serverKey: URL
    /// `sha256//<base64>` of the server key's SubjectPublicKeyInfo (curl's pin format).
    public let serverPin: String
    /// SHA-256 of the server SubjectPublicKeyInfo, raw bytes.
    public let serverSPKISHA256: [UInt8]

    /// `make(commonName:)` on a thread of its own (it runs `openssl` seven times).
    public static func generate(commonName: String = "localhost") async throws -> TestCertificates {
        try await Blocking.run { try make(commonName: commonName) }
    }

    /// Creates a fresh CA and server certificate. Blocks: use `generate` from async code.
    ///
    /// - Parameter commonName: the server certificate's CN.
    public static func make(commonName: String = "localhost") throws -> TestCertificates {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let p = { (name: String) in dir.appendingPathComponent(name).path }
        try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", p("ca.key")])
        try openssl(["req", "-x509", "-new", "-key", p("ca.key"), "-sha256", "-days", "2", "-subj", "/CN=Mailwake Test CA",
                     "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out",
                     p("ca.pem")])
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p("server.key")])
        try openssl(["req", "-new", "-key", p("server.key"), "-subj", "/CN=\(commonName)", "-out", p("server.csr")])
        try ("subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\n" +
             "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n")
            .write(toFile: p("server.ext"), atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", p("server.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"), "-CAcreateserial",
                     "-days", "2", "-sha256", "-extfile", p("server.ext"), "-out", p("server.pem")])
        try openssl(["pkey", "-in", p("server.key"), "-pubout", "-outform", "DER", "-out", p("server.spki.der")])
        let spki = try Data(contentsOf: URL(fileURLWithPath: p("server.spki.der")))
        try openssl(["dgst", "-sha256", "-binary", "-out", p("server.spki.sha256"), p("server.spki.der")])
        let digest = try Data(contentsOf: URL(fileURLWithPath: p("server.spki.sha256")))
        precondition(digest.count == 32 && !spki.isEmpty)
        return TestCertificates(
            directory: dir, caCertificate: URL(fileURLWithPath: p("ca.pem")), serverCertificate: URL(fileURLWithPath: p("server.pem")),
            serverKey: URL(fileURLWithPath: p("server.key")), serverPin: "sha256//" + digest.base64EncodedString(),
            serverSPKISHA256: Array(digest))
    }

    /// Deletes the files.
    public func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Runs `openssl` (a `ChildProcess`, waited for with waitpid). Blocks the
    /// calling thread, which must not be a cooperative-pool thread.
    static func openssl(_ arguments: [String]) throws {
        try ChildProcess.run("/usr/bin/openssl", arguments, directory: nil)
    }
}

/// A test harness could not set up what a test needs.
public struct TestHarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
