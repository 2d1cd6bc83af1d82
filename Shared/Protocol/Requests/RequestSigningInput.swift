public import MailwakeCrypto

/// The bytes a signed request signs (PROTOCOL.md §8):
/// `lp("mailwake/request/v1") ‖ lp(METHOD) ‖ lp(origin) ‖ lp(path_and_query)
/// ‖ lp(ts as ASCII decimal) ‖ lp(nonce) ‖ lp(SHA-256(body))`.
public enum RequestSigningInput {
    /// Builds the signing input.
    ///
    /// - Parameters:
    ///   - method: the HTTP method in upper case.
    ///   - origin: the receiving service's public origin as configured on it.
    ///   - pathAndQuery: the request target exactly as sent.
    ///   - timestamp: the `ts` parameter.
    ///   - nonce: the 16 nonce bytes.
    ///   - bodyDigest: SHA-256 of the body bytes (of nothing for no body).
    public static func build(method: String, origin: String, pathAndQuery: String, timestamp: Int64, nonce: [UInt8],
                             bodyDigest: SHA256.Digest) -> [UInt8] {
        var s = SigningInput(capacity: 128 + origin.utf8.count + pathAndQuery.utf8.count)
        s.lp("mailwake/request/v1")
        s.lp(method)
        s.lp(origin)
        s.lp(pathAndQuery)
        s.lp(String(timestamp))
        s.lp(nonce)
        s.lp(bodyDigest.bytes)
        return s.bytes
    }
}
