/// A readable plain-text rendering of an HTML document: blocks on their own
/// lines, list items bulleted, table cells separated, images by their alt
/// text; scripts, styles and other dropped elements contribute nothing.
enum HTMLTextRenderer {
    static let blocks: Set<String> = [
        "address", "article", "aside", "blockquote", "center", "dd", "details", "div", "dl", "dt", "figcaption", "figure",
        "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
        "summary", "table", "tr", "ul", "caption", "form", "fieldset",
    ]

    /// Renders the document.
    static func render(_ document: HTMLDocument) -> String {
        var out = TextBuffer()
        var stack: [(next: Int, end: Int, name: String, pre: Bool)] = [(document.children.lowerBound, document.children.upperBound, "",
                                                                        false)]
        while !stack.isEmpty {
            let top = stack.count - 1
            guard stack[top].next < stack[top].end else {
                if blocks.contains(stack[top].name) { out.breakLine(paragraph: ["p", "h1", "h2", "h3", "h4", "h5", "h6", "table",
                                                                                "blockquote", "ul", "ol"].contains(stack[top].name)) }
                stack.removeLast()
                continue
            }
            let index = stack[top].next
            stack[top].next += 1
            let pre = stack[top].pre
            switch document.nodes[index] {
            case .text(let text):
                out.append(bytes: text, preformatted: pre)
            case .comment, .other:
                continue
            case .element(let element):
                let name = element.name
                guard element.isHTML, name != "style", name != "head", !(HTMLPolicy.dropped.contains(name)) else { continue }
                switch name {
                case "br":
                    out.breakLine(paragraph: false, force: true)
                case "img":
                    if let alt = element.attribute("alt")?.trimmingSpaces, !alt.isEmpty {
                        out.append("[\(alt)]", preformatted: false)
                    }
                case "td", "th":
                    out.cellSeparator()
                    stack.append((element.children.lowerBound, element.children.upperBound, name, pre))
                default:
                    if blocks.contains(name) { out.breakLine(paragraph: name == "p") }
                    if name == "li" { out.append("• ", preformatted: true) }
                    if name == "hr" { out.append("―――", preformatted: true) }
                    stack.append((element.children.lowerBound, element.children.upperBound, name, pre || name == "pre"))
                }
            }
        }
        return out.result
    }

    /// The text of HTML that is not parsed (too deep): tags and raw-text
    /// elements removed, the common entities decoded, spaces collapsed.
    static func tagStripped(_ html: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < html.count {
            if html[i] == UInt8(ascii: "<") {
                let nameStart = i + 1
                var j = nameStart
                while j < html.count, HTMLPolicy.isLetter(html[j]) { j += 1 }
                let name = String(decoding: html[nameStart..<j], as: UTF8.self).lowercased()
                while j < html.count, html[j] != UInt8(ascii: ">") { j += 1 }
                i = j + 1
                if name == "script" || name == "style" || name == "head" || name == "title" {
                    let close = Array("</\(name)".utf8)
                    while i + close.count <= html.count,
                          !html[i..<(i + close.count)].map({ $0 | 0x20 }).elementsEqual(close.map { $0 | 0x20 }) { i += 1 }
                }
                out.append(UInt8(ascii: " "))
            } else {
                out.append(html[i])
                i += 1
            }
        }
        var text = TextBuffer()
        var s = String(decoding: out, as: UTF8.self)
        for (entity, plain) in [("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            s = s.replacingOccurrences(entity, with: plain)
        }
        text.append(s, preformatted: false)
        return text.result
    }

    /// Accumulates text with collapsed spaces and at most one blank line.
    struct TextBuffer {
        private var bytes: [UInt8] = []
        private var pendingSpace = false
        private var newlines = 2   // at the start: no leading breaks

        mutating func append(_ s: String, preformatted: Bool) {
            var utf8 = Array(s.utf8)
            utf8.withUnsafeMutableBufferPointer { append($0, preformatted: preformatted) }
        }

        mutating func append(bytes utf8: [UInt8], preformatted: Bool) {
            utf8.withUnsafeBufferPointer { append($0, preformatted: preformatted) }
        }

        private mutating func append(_ utf8: UnsafeBufferPointer<UInt8>, preformatted: Bool) {
            var i = 0
            while i < utf8.count {
                let b = utf8[i]
                // U+00A0 (C2 A0) counts as a space
                let nbsp = b == 0xC2 && i + 1 < utf8.count && utf8[i + 1] == 0xA0
                if nbsp || (!preformatted && (b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C)) {
                    if newlines == 0 { pendingSpace = true }
                    i += nbsp ? 2 : 1
                    continue
                }
                if b == 0x0A {
                    bytes.append(b)
                    newlines += 1
                    pendingSpace = false
                    i += 1
                    continue
                }
                if b < 0x20 && b != 0x09 {
                    i += 1
                    continue
                }
                if pendingSpace { bytes.append(0x20) }
                pendingSpace = false
                bytes.append(b)
                newlines = 0
                i += 1
            }
        }

        private mutating func append(_ utf8: UnsafeMutableBufferPointer<UInt8>, preformatted: Bool) {
            append(UnsafeBufferPointer(utf8), preformatted: preformatted)
        }

        mutating func breakLine(paragraph: Bool, force: Bool = false) {
            pendingSpace = false
            let wanted = paragraph ? 2 : 1
            if force {
                bytes.append(0x0A)
                newlines += 1
                return
            }
            while newlines < wanted {
                bytes.append(0x0A)
                newlines += 1
            }
        }

        mutating func cellSeparator() {
            if newlines == 0 { pendingSpace = true }
        }

        var result: String {
            var end = bytes.count
            while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x20 { end -= 1 }
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
    }
}

extension String {
    /// Replaces every occurrence of `target` (no Foundation needed).
    func replacingOccurrences(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        result += rest
        return result
    }
}
