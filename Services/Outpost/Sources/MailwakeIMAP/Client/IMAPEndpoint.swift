/// Where and how to connect to an IMAP server.
public struct IMAPEndpoint: Sendable, Equatable {
    /// How the connection is protected.
    public enum Security: String, Sendable, Equatable, CaseIterable {
        /// TLS from the first byte (port 993).
        case implicitTLS = "implicit"
        /// Plain TCP upgraded with STARTTLS before anything else (port 143).
        case startTLS = "starttls"
        /// No TLS: only for a server on the loopback interface.
        case none = "none"

        /// The usual port.
        public var defaultPort: UInt16 { self == .implicitTLS ? 993 : 143 }
    }

    public var host: String
    public var port: UInt16
    public var security: Security
    /// PEM file of trusted CAs replacing the system store (a private CA).
    public var caFile: String?
    /// Seconds for TCP connect and TLS handshake. Default 20 s.
    public var connectTimeout: Duration = .seconds(20)
    /// Longest wait for a command's answer. Default 60 s.
    public var commandTimeout: Duration = .seconds(60)
    /// Largest response accepted (literals included). Default 16 MiB.
    public var maxResponseBytes: Int = 16 << 20

    public init(host: String, port: UInt16? = nil, security: Security = .implicitTLS, caFile: String? = nil) {
        self.host = host
        self.port = port ?? security.defaultPort
        self.security = security
        self.caFile = caFile
    }

    /// True when `host` names the loopback interface.
    public var isLoopback: Bool {
        let h = host.lowercased()
        return h == "localhost" || h == "::1" || h == "[::1]" || h.hasPrefix("127.")
    }
}
