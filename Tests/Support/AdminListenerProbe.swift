import MailwakeHTTPClient
import MailwakeHTTPTypes

/// What an admin listener answers on one port over HTTPS, and whether plain HTTP gets an answer there too.
public struct AdminListenerProbe: Sendable {
    /// Status of `GET /healthz` over HTTPS.
    public let healthzStatus: Int
    /// Body of `GET /healthz` over HTTPS.
    public let healthzBody: String
    /// Status of `GET /metrics` over HTTPS.
    public let metricsStatus: Int
    /// Status of `GET /healthz` over plain HTTP on the same port; nil when there was no HTTP answer.
    public let plainHTTPStatus: Int?

    /// Asks the listener on 127.0.0.1.
    /// - Parameters:
    ///   - port: the admin listener's port.
    ///   - caFile: the CA that signed the listener's certificate.
    public static func probe(port: Int, caFile: String) async throws -> AdminListenerProbe {
        var tls = HTTPClient.Configuration()
        tls.caFile = caFile
        tls.httpVersion = .http1_1
        let client = try HTTPClient(configuration: tls)
        defer { client.shutdown() }
        let healthz = try await client.execute(.init(method: .get, url: "https://127.0.0.1:\(port)/healthz"))
        let metrics = try await client.execute(.init(method: .get, url: "https://127.0.0.1:\(port)/metrics"))

        var plainConfiguration = HTTPClient.Configuration()
        plainConfiguration.httpVersion = .http1_1
        let plain = try HTTPClient(configuration: plainConfiguration)
        defer { plain.shutdown() }
        let plainAnswer = try? await plain.execute(.init(method: .get, url: "http://127.0.0.1:\(port)/healthz"))
        return AdminListenerProbe(
            healthzStatus: healthz.status.code, healthzBody: String(decoding: healthz.body, as: UTF8.self),
            metricsStatus: metrics.status.code, plainHTTPStatus: plainAnswer?.status.code)
    }
}
