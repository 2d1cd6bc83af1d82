/// What a URL in an e-mail may be used for, decided the way browsers read
/// it: surrounding spaces and controls ignored, tabs and newlines removed
/// anywhere, the scheme compared case-insensitively.
enum URLPolicy {
    /// How a link or image URL is kept.
    enum Verdict: Equatable {
        /// Kept as it is (cleaned).
        case keep(String)
        /// A remote image: kept only as `data-mw-remote-src`.
        case remote(String)
        /// An inline part (`cid:`), by Content-ID.
        case contentID(String)
        /// Dropped.
        case drop
    }

    /// The image formats a `data:` URL may carry on `img`.
    static let dataImageTypes: Set<String> = ["image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp"]

    /// Removes what browsers ignore: leading and trailing C0 controls and
    /// spaces, and ASCII tab, LF and CR anywhere.
    static func clean(_ raw: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.utf8.count)
        for b in raw.utf8 where b != 0x09 && b != 0x0A && b != 0x0D { bytes.append(b) }
        var lo = 0
        var hi = bytes.count
        while lo < hi, bytes[lo] <= 0x20 { lo += 1 }
        while hi > lo, bytes[hi - 1] <= 0x20 { hi -= 1 }
        return String(decoding: bytes[lo..<hi], as: UTF8.self)
    }

    /// The lower-case scheme, or nil for a relative URL.
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let candidate = url[..<colon].unicodeScalars
        let isLetter: (Unicode.Scalar) -> Bool = { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        guard let first = candidate.first, isLetter(first),
              candidate.allSatisfy({ isLetter($0) || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == "." })
        else { return nil }
        return String(candidate).lowercased()
    }

    /// A link target (`a href`): http(s), mailto and tel only.
    static func link(_ raw: String) -> Verdict {
        let url = clean(raw)
        guard url.utf8.count <= 8192, let scheme = scheme(of: url) else { return .drop }
        switch scheme {
        case "http", "https": return hasAuthority(url, scheme: scheme) ? .keep(url) : .drop
        case "mailto", "tel": return .keep(url)
        default: return .drop
        }
    }

    /// A citation URL (`blockquote cite`): http(s) only.
    static func citation(_ raw: String) -> Verdict {
        let url = clean(raw)
        guard url.utf8.count <= 8192, let scheme = scheme(of: url), scheme == "http" || scheme == "https",
              hasAuthority(url, scheme: scheme) else { return .drop }
        return .keep(url)
    }

    /// An image source: `cid:` parts, remote http(s) images (marked), and
    /// `data:` images of a raster type up to `maxDataBytes`.
    static func image(_ raw: String, maxDataBytes: Int) -> Verdict {
        let url = clean(raw)
        guard let scheme = scheme(of: url) else { return .drop }
        switch scheme {
        case "cid":
            let id = String(url.dropFirst(4))
            guard !id.isEmpty, id.utf8.count <= 512 else { return .drop }
            return .contentID(id.removingPercentEncodingLeniently)
        case "http", "https":
            guard url.utf8.count <= 8192, hasAuthority(url, scheme: scheme) else { return .drop }
            return .remote(url)
        case "data":
            guard url.utf8.count <= maxDataBytes else { return .drop }
            let header = url.dropFirst(5).prefix { $0 != "," }
            let parts = header.split(separator: ";").map { $0.lowercased().trimmingSpaces }
            guard let type = parts.first, dataImageTypes.contains(type), parts.dropFirst().allSatisfy({ $0 == "base64" }),
                  parts.count == 2 else { return .drop }
            let payload = url.dropFirst(5 + header.count + 1)
            guard payload.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
                || "+/=".unicodeScalars.contains($0) }) else { return .drop }
            return .keep(url)
        default:
            return .drop
        }
    }

    private static func hasAuthority(_ url: String, scheme: String) -> Bool {
        let rest = url.utf8.dropFirst(scheme.utf8.count + 1)
        return rest.starts(with: "//".utf8) && rest.count > 2
    }
}

extension String {
    /// Decodes `%XX` escapes; invalid ones stay as they are.
    var removingPercentEncodingLeniently: String {
        guard contains("%") else { return self }
        var bytes: [UInt8] = []
        var it = Array(utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%"), it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    var trimmingSpaces: String {
        String(decoding: Bytes.trimmed(Array(utf8)[...]), as: UTF8.self)
    }
}
