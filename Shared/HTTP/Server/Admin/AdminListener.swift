public import MailwakeCore

/// The admin listener's transport rule: plain HTTP on loopback, HTTPS with the
/// service's own certificate (`TLS_CERT`/`TLS_KEY`) on any other address.
///
/// A scraper or health check on the same host reaches a loopback listener
/// without TLS; anything that crosses a network (compose, Kubernetes, a
/// second VM) gets TLS, never a plain-HTTP exception.
public enum AdminListener {
    /// Checks the rule at start: a non-loopback `address` needs TLS files.
    ///
    /// - Parameters:
    ///   - address: the parsed admin address.
    ///   - hasTLS: whether the service has a certificate and key for it.
    ///   - configuration: the loaded settings (for key names and where the value came from).
    ///   - setting: the admin address setting (`ADMIN_LISTEN`).
    ///   - tlsNames: the names of the certificate and key settings, without prefix.
    /// - Throws: one line naming the admin key and the missing TLS keys.
    public static func check(_ address: ListenAddress, hasTLS: Bool, in configuration: ServiceConfiguration,
                             setting: ConfigurationSetting<String>,
                             tlsNames: (certificate: String, key: String) = ("TLS_CERT", "TLS_KEY")) throws(ConfigurationError) {
        guard !hasTLS, !HTTPServer.Configuration.isLoopback(address.host) else { return }
        let prefix = configuration.prefix
        throw ConfigurationError(
            key: prefix + setting.name,
            reason: "is not a loopback address, so the admin listener serves HTTPS, but \(prefix)\(tlsNames.certificate) and " +
                    "\(prefix)\(tlsNames.key) are not set "
                + "(set them, or listen on 127.0.0.1 or [::1] for plain HTTP)",
            source: configuration.source(of: setting), shownValue: address.description)
    }

    /// The listener configuration for `address`: `tls` is used off loopback,
    /// plain HTTP on loopback.
    ///
    /// - Parameters:
    ///   - address: where to listen.
    ///   - tls: the service's certificate and key, if it has them.
    ///   - metricsPrefix: e.g. `mailwake_relay`.
    public static func configuration(_ address: ListenAddress, tls: HTTPServer.Configuration.TLS?,
                                     metricsPrefix: String) -> HTTPServer.Configuration {
        var c = HTTPServer.Configuration()
        c.name = "admin"
        c.host = address.host
        c.port = address.port
        c.metricsPrefix = metricsPrefix
        if c.isLoopback {
            c.allowPlainHTTP = true
        } else {
            c.tls = tls
        }
        return c
    }
}
