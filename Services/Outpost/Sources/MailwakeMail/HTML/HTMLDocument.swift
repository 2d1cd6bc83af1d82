import CGumboShims

/// An HTML5 parse tree (gumbo) over a copy of the source bytes, which the
/// tree points into; freed when the document goes away.
final class HTMLDocument {
    /// The element and text nodes the sanitizer and the text renderer look at.
    enum Node {
        case element(name: String, namespaceIsHTML: Bool, node: UnsafeMutablePointer<GumboNode>)
        case text(UnsafePointer<CChar>)
        case other
    }

    private let source: UnsafeMutableBufferPointer<CChar>
    private let output: UnsafeMutablePointer<GumboOutput>

    /// Parses `html`; nil only when the parser could not get resources.
    init?(_ html: [UInt8]) {
        let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: html.count + 1)
        html.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: base, byteCount: bytes.count) }
        }
        buffer[html.count] = 0
        guard let parsed = mw_html_parse(buffer.baseAddress, html.count) else {
            buffer.deallocate()
            return nil
        }
        source = buffer
        output = parsed
    }

    deinit {
        mw_html_free(output)
        source.deallocate()
    }

    /// The document node.
    var document: UnsafeMutablePointer<GumboNode> { output.pointee.document }

    /// Lower-case names of the known tags, indexed by `GumboTag` raw value.
    static let tagNames: [String] = (0..<Int(mw_html_tag_count()))
        .map { String(cString: mw_html_tag_name(GumboTag(rawValue: UInt32($0)))) }

    /// What `node` is.
    static func classify(_ node: UnsafeMutablePointer<GumboNode>) -> Node {
        switch node.pointee.type {
        case GUMBO_NODE_ELEMENT:
            let element = node.pointee.v.element
            let raw = Int(element.tag.rawValue)
            let name = raw < tagNames.count ? tagNames[raw] : ""
            return .element(name: name, namespaceIsHTML: element.tag_namespace == GUMBO_NAMESPACE_HTML, node: node)
        case GUMBO_NODE_TEXT, GUMBO_NODE_WHITESPACE:
            return node.pointee.v.text.text.map { .text($0) } ?? .other
        default:
            return .other   // comments, CDATA (foreign content only), templates, the document
        }
    }

    /// The children of an element or the document.
    static func children(of node: UnsafeMutablePointer<GumboNode>) -> UnsafeBufferPointer<UnsafeMutableRawPointer?> {
        let vector = node.pointee.type == GUMBO_NODE_DOCUMENT ? node.pointee.v.document.children : node.pointee.v.element.children
        guard let data = vector.data else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: data, count: Int(vector.length))
    }

    /// The attributes of an element as (lower-case name, decoded value).
    static func attributes(of node: UnsafeMutablePointer<GumboNode>) -> [(name: String, value: String)] {
        let vector = node.pointee.v.element.attributes
        guard let data = vector.data else { return [] }
        var out: [(String, String)] = []
        out.reserveCapacity(Int(vector.length))
        for i in 0..<Int(vector.length) {
            guard let attribute = data[i]?.assumingMemoryBound(to: GumboAttribute.self) else { continue }
            guard let name = attribute.pointee.name, let value = attribute.pointee.value else { continue }
            out.append((String(cString: name), String(cString: value)))
        }
        return out
    }
}
