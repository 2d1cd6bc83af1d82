import Foundation

/// Plain text from HTML for code detection: drops `<script>`, `<style>` and
/// `<head>` contents and every tag, turns block ends into line breaks and
/// decodes the common entities. (Body reading uses a real HTML5 parser.)
enum HTMLText {
    static func visibleText(_ html: String) -> String {
        var s = html
        for element in ["script", "style", "head", "title"] {
            while let open = s.range(of: "<\(element)", options: .caseInsensitive) {
                guard let close = s.range(of: "</\(element)>", options: .caseInsensitive, range: open.upperBound..<s.endIndex) else {
                    s.removeSubrange(open.lowerBound..<s.endIndex)
                    break
                }
                s.removeSubrange(open.lowerBound..<close.upperBound)
            }
        }
        var out = ""
        var inTag = false
        var tag = ""
        for ch in s {
            if inTag {
                if ch == ">" {
                    inTag = false
                    let name = tag.lowercased().drop { $0 == "/" }.prefix { $0.isLetter }
                    if ["br", "p", "div", "tr", "li", "h1", "h2", "h3", "table"].contains(String(name)) { out += "\n" } else { out += " " }
                    tag = ""
                } else {
                    tag.append(ch)
                }
            } else if ch == "<" {
                inTag = true
            } else {
                out.append(ch)
            }
        }
        for (entity, text) in [("&nbsp;", " "), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&#x27;", "'")] {
            out = out.replacingOccurrences(of: entity, with: text)
        }
        return out
    }
}
