import Foundation

/// The answer of a device authorization endpoint (RFC 8628 §3.2): the code
/// the user types at the verification URI.
public struct DeviceAuthorization: Sendable, Equatable {
    public var deviceCode: String
    public var userCode: String
    public var verificationURI: String
    /// The URI with the code filled in, when the server offers one.
    public var verificationURIComplete: String?
    /// Seconds until the device code expires.
    public var expiresIn: Int
    /// Seconds to wait between polls (default 5).
    public var interval: Int
    /// The server's own text for the user (Microsoft sends one), if any.
    public var message: String?

    /// Parses the JSON body (Microsoft's older `verification_url` is accepted too).
    public static func parse(_ body: [UInt8]) throws(OAuthError) -> DeviceAuthorization {
        guard let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw OAuthError("invalid_response", "the device authorization endpoint answered with something other than a JSON object")
        }
        func int(_ key: String) -> Int? { (json[key] as? NSNumber)?.intValue ?? (json[key] as? String).flatMap { Int($0) } }
        guard let device = json["device_code"] as? String, !device.isEmpty, let user = json["user_code"] as? String, !user.isEmpty,
              let uri = (json["verification_uri"] ?? json["verification_url"]) as? String, !uri.isEmpty, let expires = int("expires_in")
        else { throw OAuthError("invalid_response",
                                "the device authorization response lacks device_code, user_code, verification_uri or expires_in") }
        return DeviceAuthorization(deviceCode: device, userCode: user, verificationURI: uri,
                                   verificationURIComplete: json["verification_uri_complete"] as? String, expiresIn: expires,
                                   interval: max(1, int("interval") ?? 5), message: json["message"] as? String)
    }
}
