/// The allow-list: which elements and attributes of an e-mail's HTML are
/// kept, and which elements go with everything inside them.
enum HTMLPolicy {
    /// What happens to an element.
    enum Disposition {
        /// Kept with its allowed attributes.
        case keep
        /// The tag is dropped, its content kept (unknown or structural elements).
        case unwrap
        /// Dropped with everything inside.
        case drop
    }

    /// Elements kept: text formatting, headings, lists, tables, links, images.
    static let kept: Set<String> = [
        "a", "abbr", "acronym", "address", "article", "aside", "b", "bdi", "bdo", "big", "blockquote", "br",
        "caption", "center", "cite", "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt",
        "em", "figcaption", "figure", "font", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
        "i", "img", "ins", "kbd", "li", "main", "mark", "nav", "ol", "p", "pre", "q", "rp", "rt", "ruby",
        "s", "samp", "section", "small", "span", "strike", "strong", "sub", "summary", "sup",
        "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "tt", "u", "ul", "var", "wbr",
    ]

    /// Elements dropped with their content: active content, embedded
    /// documents, forms' controls, metadata, raw text.
    static let dropped: Set<String> = [
        "script", "iframe", "frame", "frameset", "noframes", "object", "embed", "applet", "param",
        "noscript", "noembed", "template", "xmp", "plaintext", "listing", "textarea", "select", "option", "optgroup",
        "datalist", "input", "keygen", "output", "progress", "meter", "canvas", "audio", "video", "source", "track",
        "picture", "map", "area", "dialog", "menu", "menuitem", "title", "meta", "link", "base", "basefont",
        "bgsound", "isindex", "marquee", "blink", "math", "svg", "image", "head",
    ]

    /// Void elements: no end tag in the output.
    static let void: Set<String> = ["br", "col", "hr", "img", "wbr"]

    /// Attributes any kept element may carry (values checked by kind).
    static let global: Set<String> = ["title", "dir", "lang", "align", "valign", "style", "class", "width", "height", "bgcolor"]

    /// Further attributes per element.
    static let perElement: [String: Set<String>] = [
        "a": ["href"],   // no `name`: named elements clobber the page's globals (`window.x`, `document.x`)
        "img": ["src", "alt", "border", "hspace", "vspace"],
        "table": ["border", "cellpadding", "cellspacing", "summary", "frame", "rules"],
        "td": ["colspan", "rowspan", "nowrap", "headers", "scope", "abbr"],
        "th": ["colspan", "rowspan", "nowrap", "headers", "scope", "abbr"],
        "col": ["span"], "colgroup": ["span"],
        "ol": ["start", "type", "reversed"], "ul": ["type"], "li": ["value", "type"],
        "font": ["color", "face", "size"],
        "blockquote": ["cite"], "q": ["cite"], "del": ["cite", "datetime"], "ins": ["cite", "datetime"],
        "time": ["datetime"], "hr": ["size", "noshade", "color"], "details": ["open"],
        "bdo": ["dir"], "tr": ["height"],
    ]

    /// What to do with an element named `name` (lower case; "" for unknown tags).
    static func disposition(of name: String, isHTML: Bool) -> Disposition {
        guard isHTML else { return .drop }   // SVG and MathML with everything in them
        if kept.contains(name) { return .keep }
        if dropped.contains(name) { return .drop }
        return .unwrap   // html, body, form, button, label, unknown and custom elements
    }

    /// Whether `attribute` is allowed on `element` at all.
    static func allows(_ attribute: String, on element: String) -> Bool {
        global.contains(attribute) || perElement[element]?.contains(attribute) == true
    }

    /// A plain attribute value (not a URL or style), or nil when unsafe.
    static func plainValue(_ attribute: String, _ value: String) -> String? {
        switch attribute {
        case "width", "height", "border", "cellpadding", "cellspacing", "colspan", "rowspan", "span", "start", "value",
             "size", "hspace", "vspace":
            return value.utf8.count <= 16
                && value.utf8.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "*")
                    || isLetter($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }) ? value : nil
        case "color", "bgcolor":
            return value.utf8.count <= 32
                && value.utf8.allSatisfy({ isDigit($0) || isLetter($0) || "#(),. %".utf8.contains($0) }) ? value : nil
        case "align":
            return ["left", "right", "center", "justify", "middle", "top", "bottom", "absmiddle",
                    "baseline"].contains(value.lowercased()) ? value : nil
        case "valign":
            return ["top", "middle", "bottom", "baseline"].contains(value.lowercased()) ? value : nil
        case "dir":
            return ["ltr", "rtl", "auto"].contains(value.lowercased()) ? value : nil
        case "type":
            return ["1", "a", "A", "i", "I", "disc", "circle", "square"].contains(value) ? value : nil
        case "class":
            let tokens = value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                .filter { $0.utf8.count <= 64
                    && $0.utf8.allSatisfy({ isDigit($0) || isLetter($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) }
            return tokens.isEmpty ? nil : tokens.prefix(32).joined(separator: " ")
        case "lang", "scope", "frame", "rules", "datetime", "headers":
            return value.utf8.count <= 64
                && value.utf8.allSatisfy({ isDigit($0) || isLetter($0) || "-_:. ".utf8.contains($0) }) ? value : nil
        case "nowrap", "reversed", "noshade", "open":
            return ""
        default:   // free text: title, alt, summary, abbr, face
            return value.utf8.count <= 1024 ? value : String(value.prefix(1024))
        }
    }

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
    @inline(__always) static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
}
