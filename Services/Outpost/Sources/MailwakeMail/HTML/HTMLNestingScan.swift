/// A linear pre-scan that estimates how deeply an HTML document nests, so
/// that pathological documents never reach the parser (HTML5 tree
/// construction does work proportional to the depth for every tag).
///
/// It counts open non-void start tags and matching end tags, skips comments
/// and raw-text elements, and ignores elements whose end tags are implied
/// (`p`, `li`, `td` …). An end tag only closes a name it saw opened. An
/// adversary can make the estimate at most undercount by the end tags that
/// the parser would ignore, each paid for by an earlier start tag.
enum HTMLNestingScan {
    static let void: Set<String> = ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track",
                                    "wbr", "keygen", "image"]
    static let implied: Set<String> = ["p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "tbody", "thead", "tfoot",
                                       "colgroup", "rb", "rt", "rp", "rtc", "html", "head", "body"]
    static let rawText: Set<String> = ["script", "style", "textarea", "title", "xmp", "noembed", "noframes", "iframe", "noscript"]

    /// The deepest estimated nesting, stopping early once `limit` is passed.
    static func depth(of html: [UInt8], limit: Int) -> Int {
        var depth = 0
        var deepest = 0
        var open: [String: Int] = [:]
        var i = 0
        let n = html.count
        while i < n {
            guard html[i] == UInt8(ascii: "<") else {
                i += 1
                continue
            }
            i += 1
            guard i < n else { break }
            if html[i] == UInt8(ascii: "!") {
                if i + 2 < n, html[i + 1] == UInt8(ascii: "-"), html[i + 2] == UInt8(ascii: "-") {
                    i = find(html, "-->", from: i + 3).map { $0 + 3 } ?? n
                } else {
                    i = find(html, ">", from: i).map { $0 + 1 } ?? n
                }
                continue
            }
            let closing = html[i] == UInt8(ascii: "/")
            if closing { i += 1 }
            let nameStart = i
            while i < n, HTMLPolicy.isLetter(html[i]) || HTMLPolicy.isDigit(html[i]) || html[i] == UInt8(ascii: "-") { i += 1 }
            guard i > nameStart else { continue }
            let name = String(decoding: html[nameStart..<i], as: UTF8.self).lowercased()
            let tagEnd = find(html, ">", from: i) ?? n
            let selfClosing = tagEnd > 0 && tagEnd < n && html[tagEnd - 1] == UInt8(ascii: "/")
            i = tagEnd + 1
            if closing {
                if !implied.contains(name), let count = open[name], count > 0 {
                    open[name] = count - 1
                    depth -= 1
                }
                continue
            }
            if rawText.contains(name) {
                i = findEndTag(html, name, from: i) ?? n
                continue
            }
            guard !void.contains(name), !implied.contains(name), !selfClosing else { continue }
            open[name, default: 0] += 1
            depth += 1
            if depth > deepest {
                deepest = depth
                if deepest > limit { return deepest }
            }
        }
        return deepest
    }

    private static func find(_ bytes: [UInt8], _ needle: String, from start: Int) -> Int? {
        let pattern = Array(needle.utf8)
        guard start <= bytes.count - pattern.count else { return nil }
        var i = start
        while i <= bytes.count - pattern.count {
            if bytes[i] == pattern[0], bytes[i..<(i + pattern.count)].elementsEqual(pattern) { return i }
            i += 1
        }
        return nil
    }

    private static func findEndTag(_ bytes: [UInt8], _ name: String, from start: Int) -> Int? {
        var i = start
        let pattern = Array(("</" + name).utf8)
        while let at = find(bytes, "</", from: i) {
            let end = at + pattern.count
            if end <= bytes.count, bytes[at..<end].map({ $0 | 0x20 }).elementsEqual(pattern.map { $0 | 0x20 }) { return end }
            i = at + 2
        }
        return nil
    }
}
