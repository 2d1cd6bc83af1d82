import Foundation
import MailwakeCore
import MailwakeCrypto

/// The certificate of the outpost's HTTPS API: the configured one, or a
/// self-signed one the outpost creates once in `<data dir>/tls`. Either way
/// invitations carry the SHA-256 of its key (the App pins it, §10).
public struct OutpostTLS: Sendable {
    public var certificatePath: String
    public var keyPath: String
    /// SHA-256 of the certificate's SubjectPublicKeyInfo.
    public var pin: [UInt8]
    public var selfSigned: Bool

    /// The configured certificate, or the self-signed one (created when missing).
    ///
    /// - Parameters:
    ///   - directory: the data directory.
    ///   - api: the API's settings (`TLS_CERT`, `TLS_KEY`).
    ///   - origin: the public origin, whose host goes into a new certificate.
    public static func resolve(directory: DataDirectory, api: OutpostConfiguration.API, origin: String) throws -> OutpostTLS {
        if let cert = api.tlsCertificate {
            guard let key = api.tlsKey else {
                throw ConfigurationError(key: OutpostSettings.spec.key(OutpostSettings.tlsKey),
                                         reason: "TLS_CERT and TLS_KEY must be given together")
            }
            return OutpostTLS(certificatePath: cert, keyPath: key, pin: try pin(of: cert), selfSigned: false)
        }
        let dir = directory.path + "/tls"
        let cert = dir + "/outpost-cert.pem"
        let key = dir + "/outpost-key.pem"
        let files = FileManager.default
        if !files.fileExists(atPath: cert) || !files.fileExists(atPath: key) {
            try files.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let host = URLComponents(string: origin)?.host ?? "localhost"
            let names = Array(Set([host, "localhost", "127.0.0.1", "::1"])).sorted()
            let created = try ServerCertificate.selfSigned(commonName: "Mailwake outpost \(host)", subjectAltNames: names)
            try write(created.privateKeyPEM, to: key, mode: 0o600)
            try write(created.certificate.certificatePEM, to: cert, mode: 0o644)
        }
        return OutpostTLS(certificatePath: cert, keyPath: key, pin: try pin(of: cert), selfSigned: true)
    }

    /// The public origin: `PUBLIC_URL`, else `https://<host name>:<port>`.
    public static func origin(_ api: OutpostConfiguration.API) throws -> String {
        let configured = api.publicURL
        if !configured.isEmpty {
            guard let c = URLComponents(string: configured), c.scheme == "https", c.host?.isEmpty == false,
                  c.path.isEmpty || c.path == "/", c.query == nil else {
                throw ConfigurationError(key: OutpostSettings.spec.key(OutpostSettings.publicURL),
                                         reason: "must be an https origin such as https://mail.example.net:8443", shownValue: configured)
            }
            return configured.hasSuffix("/") ? String(configured.dropLast()) : configured
        }
        let listen = api.listen ?? OutpostConfiguration.API.defaultListen
        let host = ProcessInfo.processInfo.hostName.isEmpty ? "localhost" : ProcessInfo.processInfo.hostName
        return listen.port == 443 ? "https://\(host)" : "https://\(host):\(listen.port)"
    }

    private static func pin(of certificatePath: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: certificatePath) else {
            throw OutpostError(.dataDirectory, "cannot read the TLS certificate \(certificatePath)")
        }
        return try ServerCertificate(certificatePEM: String(decoding: data, as: UTF8.self)).spkiSHA256()
    }

    /// Creates `path` with `mode` from the first moment (`SecretFile`): the key is never readable by others.
    private static func write(_ text: String, to path: String, mode: mode_t) throws {
        try SecretFile.create(at: path, bytes: Array(text.utf8), mode: mode, code: .dataDirectory)
    }
}
