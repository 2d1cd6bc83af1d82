/// URLs of the body-reading routes, as the App and the sanitized HTML use them.
public enum BodyRoutes {
    /// `/v1/messages/part?ref=…&cid=…` with both values percent-encoded.
    public static func partPath(ref: String, contentID: String) -> String {
        "/v1/messages/part?ref=\(encode(ref))&cid=\(encode(contentID))"
    }

    /// `/v1/messages/body?ref=…`.
    public static func bodyPath(ref: String) -> String {
        "/v1/messages/body?ref=\(encode(ref))"
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func encode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
