public import MailwakeCrypto
public import MailwakeHTTPTypes
import MailwakeProtocol

extension HTTPClient.Request {
    /// A request carrying the `Mailwake-Signature` header (PROTOCOL.md §8) of `key`, for the receiver at `origin`.
    ///
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - baseURL: where the request goes (`https://host:port`, often the origin itself).
    ///   - pathAndQuery: the request target, sent and signed exactly as given.
    ///   - body: a JSON body (`Content-Type: application/json` is added), or nil for none.
    ///   - key: the signer's key (an outpost's identity or a device's signing key).
    ///   - origin: the receiver's public origin, as it checks it.
    ///   - timestamp: Unix seconds of the signature.
    ///   - nonce: 16 bytes; fresh random when nil.
    ///   - signedTarget: sign another target than the one sent (only tests of refusals need this).
    ///   - headers: further headers (a session, a bearer token).
    ///   - timeout: overrides the client's total timeout.
    public static func signed(_ method: HTTPMethod, baseURL: String, _ pathAndQuery: String, body: [UInt8]? = nil,
                              key: P256.Signing.PrivateKey, origin: String, timestamp: Int64, nonce: [UInt8]? = nil,
                              signedTarget: String? = nil, headers: HTTPHeaders = [:],
                              timeout: Duration? = nil) throws -> HTTPClient.Request {
        let signature = try RequestSigner(key: key).sign(method: method.rawValue, origin: origin,
                                                         pathAndQuery: signedTarget ?? pathAndQuery,
                                                         body: body ?? [], timestamp: timestamp, nonce: nonce)
        var all = headers
        all.add(SignatureHeader.name, signature.value)
        if body != nil { all.add("Content-Type", "application/json") }
        return HTTPClient.Request(method: method, url: baseURL + pathAndQuery, headers: all, body: body, timeout: timeout)
    }
}
