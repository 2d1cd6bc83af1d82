/// Makes an e-mail's HTML safe to show: parsed as a browser would (gumbo,
/// HTML5), then serialized from the tree with only allowed elements,
/// attributes, URLs and CSS. Inline `cid:` images point at the part endpoint,
/// remote images are kept only as `data-mw-remote-src` for the App to decide,
/// links open with `rel="noopener noreferrer"`, `<style>` sheets apply only
/// inside the message's container.
public struct HTMLSanitizer: Sendable {
    /// Limits of a sanitizer.
    public struct Configuration: Sendable {
        /// HTML beyond this many bytes is cut at a tag boundary (and the result marked truncated). Default 2 MiB.
        public var maxInputBytes: Int = 2 << 20
        /// Deeper documents (estimated before parsing) are not rendered as HTML, only as text. Default 400.
        public var maxDepth: Int = 400
        /// `data:` image URLs longer than this are dropped. Default 512 KiB.
        public var maxDataImageBytes: Int = 512 * 1024
        /// `<style>` sheets are filtered up to this many bytes each. Default 256 KiB.
        public var maxStylesheetBytes: Int = 256 * 1024

        public init() {}
    }

    /// A sanitized document.
    public struct Result: Sendable, Equatable {
        /// The safe HTML (a body fragment), nil when the document could not be rendered safely.
        public var html: String?
        /// Why `html` is nil.
        public var omittedReason: String?
        /// The readable text of the document.
        public var text: String
        /// Remote image URLs, as marked in `data-mw-remote-src`.
        public var remoteImages: [String]
        /// Content-IDs referenced by `cid:` images.
        public var contentIDs: [String]
        /// Whether the input was cut to `maxInputBytes`.
        public var truncated: Bool
    }

    public let configuration: Configuration

    /// The attribute of the `div` that holds a message with `<style>` sheets:
    /// every kept selector starts with `[data-mw-message]` and matches only
    /// inside it, so a message cannot restyle or hide the page around it.
    public static let containerAttribute = "data-mw-message"
    static let scope = "[\(containerAttribute)]"

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Sanitizes `html` (UTF-8).
    ///
    /// - Parameters:
    ///   - html: the document.
    ///   - partURL: the URL that serves the inline part with a Content-ID.
    public func sanitize(_ html: [UInt8], partURL: @escaping (String) -> String) -> Result {
        var input = html
        var truncated = false
        if input.count > configuration.maxInputBytes {
            let cut = input[..<configuration.maxInputBytes].lastIndex(of: UInt8(ascii: "<")) ?? configuration.maxInputBytes
            input = Array(input[..<cut])
            truncated = true
        }
        let depth = HTMLNestingScan.depth(of: input, limit: configuration.maxDepth)
        guard depth <= configuration.maxDepth else {
            return Result(html: nil, omittedReason: "the HTML nests more than \(configuration.maxDepth) levels deep",
                          text: HTMLTextRenderer.tagStripped(input),
                          remoteImages: [], contentIDs: [], truncated: truncated)
        }
        guard let document = HTMLDocument(input) else {
            return Result(html: nil, omittedReason: "the HTML could not be parsed", text: HTMLTextRenderer.tagStripped(input),
                          remoteImages: [], contentIDs: [], truncated: truncated)
        }
        var writer = Writer(configuration: configuration, partURL: partURL)
        writer.write(document)
        let text = HTMLTextRenderer.render(document)
        if writer.keptStylesheet {
            // The sheets' selectors are confined to this container (`CSSFilter.scoped`).
            writer.out = Array("<div \(Self.containerAttribute)=\"\">".utf8) + writer.out + Array("</div>".utf8)
        }
        return Result(html: String(decoding: writer.out, as: UTF8.self), omittedReason: nil, text: text,
                      remoteImages: writer.remoteImages, contentIDs: writer.contentIDs, truncated: truncated)
    }

    /// Sanitizes a string of HTML.
    public func sanitize(_ html: String, partURL: @escaping (String) -> String) -> Result {
        sanitize(Array(html.utf8), partURL: partURL)
    }

    /// The serializer: walks the tree without recursion.
    struct Writer {
        let configuration: Configuration
        let partURL: (String) -> String
        var out: [UInt8] = []
        var remoteImages: [String] = []
        var contentIDs: [String] = []
        /// Whether a `<style>` sheet was written (the output then gets its container).
        var keptStylesheet = false

        init(configuration: Configuration, partURL: @escaping (String) -> String) {
            self.configuration = configuration
            self.partURL = partURL
            out.reserveCapacity(64 * 1024)
        }

        private struct Frame {
            /// The next child to write and the end of the children.
            var next: Int
            let end: Int
            var close: String?
            /// Inside `head`: only `style` elements count.
            var headOnly = false

            init(_ children: Range<Int>, close: String? = nil, headOnly: Bool = false) {
                next = children.lowerBound
                end = children.upperBound
                self.close = close
                self.headOnly = headOnly
            }
        }

        mutating func write(_ document: HTMLDocument) {
            var stack = [Frame(document.children)]
            var keptDepth = 0
            var openLinks = 0   // a link inside a link cannot survive a re-parse: the inner one is unwrapped
            while !stack.isEmpty {
                let top = stack.count - 1
                guard stack[top].next < stack[top].end else {
                    if let close = stack[top].close {
                        append("</"); append(close); append(">")
                        keptDepth -= 1
                        if close == "a" { openLinks -= 1 }
                    }
                    stack.removeLast()
                    continue
                }
                let index = stack[top].next
                stack[top].next += 1
                let headOnly = stack[top].headOnly
                switch document.nodes[index] {
                case .text(let text):
                    if !headOnly { appendEscaped(text, attribute: false) }
                case .comment, .other:
                    continue
                case .element(let element):
                    let name = element.name, isHTML = element.isHTML
                    if isHTML, name == "style" {
                        writeStylesheet(element, in: document)
                        continue
                    }
                    if isHTML, name == "head" {
                        stack.append(Frame(element.children, headOnly: true))
                        continue
                    }
                    if headOnly { continue }
                    if isHTML, name == "body" {
                        let close = openBody(element) ? "div" : nil
                        if close != nil { keptDepth += 1 }
                        stack.append(Frame(element.children, close: close))
                        continue
                    }
                    if isHTML, name == "div", element.hasAttribute(HTMLSanitizer.containerAttribute) {
                        stack.append(Frame(element.children))   // a container from an earlier pass: the output gets its own
                        continue
                    }
                    switch HTMLPolicy.disposition(of: name, isHTML: isHTML) {
                    case .drop:
                        continue
                    case .unwrap:
                        stack.append(Frame(element.children))
                    case .keep where keptDepth >= configuration.maxDepth || (name == "a" && openLinks > 0):
                        stack.append(Frame(element.children))
                    case .keep:
                        openTag(name, element)
                        if HTMLPolicy.void.contains(name) { continue }
                        if name == "pre", startsWithNewline(element, in: document) { append("\n") }
                        keptDepth += 1
                        if name == "a" { openLinks += 1 }
                        stack.append(Frame(element.children, close: name))
                    }
                }
            }
        }

        /// Writes a start tag with its allowed, checked attributes.
        private mutating func openTag(_ name: String, _ element: HTMLElement) {
            append("<"); append(name)
            var hasLink = false
            for attribute in element.attributes where HTMLPolicy.allows(attribute.name, on: name) {
                let value = attribute.value
                switch attribute.name {
                case "href":
                    if case .keep(let url) = URLPolicy.link(value) {
                        attr("href", url)
                        hasLink = true
                    }
                case "cite":
                    if case .keep(let url) = URLPolicy.citation(value) { attr("cite", url) }
                case "src":
                    writeImageSource(value)
                case "style":
                    let css = CSSFilter.declarations(value)
                    if !css.isEmpty { attr("style", css) }
                default:
                    if let kept = HTMLPolicy.plainValue(attribute.name, value) { attr(attribute.name, kept) }
                }
            }
            if hasLink {
                attr("rel", "noopener noreferrer")
                attr("target", "_blank")
            }
            append(">")
        }

        private mutating func writeImageSource(_ value: String) {
            switch URLPolicy.image(value, maxDataBytes: configuration.maxDataImageBytes) {
            case .keep(let url):
                attr("src", url)
            case .contentID(let id):
                attr("src", partURL(id))
                attr("data-mw-cid", id)
                if !contentIDs.contains(id) { contentIDs.append(id) }
            case .remote(let url):
                attr("data-mw-remote-src", url)
                remoteImages.append(url)
            case .drop:
                break
            }
        }

        /// `body` becomes a `div` carrying its colours and style; false when it has none.
        private mutating func openBody(_ element: HTMLElement) -> Bool {
            var declarations: [String] = []
            for attribute in element.attributes {
                let value = attribute.value
                switch attribute.name {
                case "style":
                    let css = CSSFilter.declarations(value)
                    if !css.isEmpty { declarations.append(css) }
                case "bgcolor":
                    if let color = HTMLPolicy.plainValue("bgcolor", value) { declarations.append("background-color:\(color)") }
                case "text":
                    if let color = HTMLPolicy.plainValue("color", value) { declarations.append("color:\(color)") }
                default:
                    continue
                }
            }
            guard !declarations.isEmpty else { return false }
            append("<div data-mw-body=\"\"")
            attr("style", declarations.joined(separator: ";"))
            append(">")
            return true
        }

        private mutating func writeStylesheet(_ element: HTMLElement, in document: HTMLDocument) {
            var css = ""
            for index in element.children {
                guard case .text(let text) = document.nodes[index] else { continue }
                css += String(decoding: text, as: UTF8.self)
            }
            let kept = CSSFilter.stylesheet(css, maxBytes: configuration.maxStylesheetBytes, scope: HTMLSanitizer.scope)
            guard !kept.isEmpty, !kept.utf8.contains(UInt8(ascii: "<")) else { return }
            append("<style>"); append(kept); append("</style>")
            keptStylesheet = true
        }

        private func startsWithNewline(_ element: HTMLElement, in document: HTMLDocument) -> Bool {
            guard let first = element.children.first, case .text(let text) = document.nodes[first] else { return false }
            return text.first == 0x0A
        }

        private mutating func attr(_ name: String, _ value: String) {
            append(" "); append(name); append("=\"")
            appendEscaped(value.utf8, attribute: true)
            append("\"")
        }

        private mutating func append(_ s: String) { out.append(contentsOf: s.utf8) }

        /// Escapes `&`, `<`, `>` (and `"` in attributes) up to a NUL; drops C0 controls other than whitespace.
        private mutating func appendEscaped(_ bytes: some Sequence<UInt8>, attribute: Bool) {
            for b in bytes {
                switch b {
                case 0x00: return
                case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "\"") where attribute: out.append(contentsOf: "&quot;".utf8)
                case 0x09, 0x0A, 0x0D: out.append(b)
                case 0x00..<0x20, 0x7F: break
                default: out.append(b)
                }
            }
        }
    }
}
