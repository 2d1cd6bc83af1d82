import CGumboShims

/// An HTML5 parse tree (gumbo) copied into Swift values; gumbo's tree is freed before `init` returns.
struct HTMLDocument: Sendable {
    /// Every node below the document; the children of one element stand together, in order.
    let nodes: [HTMLNode]
    /// The positions of the document's children in `nodes`.
    let children: Range<Int>

    /// Parses `html`; nil only when the parser could not get resources.
    init?(_ html: [UInt8]) {
        // gumbo's tree points into the source: both live until the copy is made.
        let source = UnsafeMutableBufferPointer<CChar>.allocate(capacity: html.count + 1)
        defer { source.deallocate() }
        html.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { UnsafeMutableRawPointer(source.baseAddress!).copyMemory(from: base, byteCount: bytes.count) }
        }
        source[html.count] = 0
        guard let output = mw_html_parse(source.baseAddress, html.count) else { return nil }
        defer { mw_html_free(output) }
        (nodes, children) = Self.copy(output.pointee.document)
    }

    /// Lower-case names of the known tags, indexed by `GumboTag` raw value.
    private static let tagNames: [String] = (0..<Int(mw_html_tag_count())).map {
        String(cString: mw_html_tag_name(GumboTag(rawValue: UInt32($0))))
    }

    /// Copies the tree under `document` without recursion (documents may nest deeply).
    private static func copy(_ document: UnsafeMutablePointer<GumboNode>) -> (nodes: [HTMLNode], children: Range<Int>) {
        var nodes: [HTMLNode] = []
        var pending: [(node: UnsafeMutablePointer<GumboNode>, slot: Int)] = []
        /// Places for the children of a node, filled as they are popped.
        func reserve(_ vector: GumboVector) -> Range<Int> {
            let start = nodes.count
            guard let data = vector.data else { return start..<start }
            for i in 0..<Int(vector.length) {
                if let child = data[i]?.assumingMemoryBound(to: GumboNode.self) { pending.append((child, nodes.count)) }
                nodes.append(.other)
            }
            return start..<nodes.count
        }
        let children = reserve(document.pointee.v.document.children)
        while let next = pending.popLast() {
            let (node, slot) = next
            switch node.pointee.type {
            case GUMBO_NODE_ELEMENT:
                let element = node.pointee.v.element
                let raw = Int(element.tag.rawValue)
                let name = raw < tagNames.count ? tagNames[raw] : ""
                let isHTML = element.tag_namespace == GUMBO_NAMESPACE_HTML
                let attributes = attributes(element.attributes)
                nodes[slot] = .element(HTMLElement(name: name, isHTML: isHTML, attributes: attributes,
                                                   children: reserve(element.children)))
            case GUMBO_NODE_TEXT, GUMBO_NODE_WHITESPACE:
                if let text = node.pointee.v.text.text { nodes[slot] = .text(bytes(text)) }
            case GUMBO_NODE_COMMENT, GUMBO_NODE_CDATA:
                nodes[slot] = .comment
            default:
                continue   // templates (and their contents) stay `.other`
            }
        }
        return (nodes, children)
    }

    /// The attributes as (lower-case name, decoded value).
    private static func attributes(_ vector: GumboVector) -> [HTMLAttribute] {
        guard let data = vector.data else { return [] }
        var out: [HTMLAttribute] = []
        out.reserveCapacity(Int(vector.length))
        for i in 0..<Int(vector.length) {
            guard let attribute = data[i]?.assumingMemoryBound(to: GumboAttribute.self) else { continue }
            guard let name = attribute.pointee.name, let value = attribute.pointee.value else { continue }
            out.append(HTMLAttribute(name: String(cString: name), value: String(cString: value)))
        }
        return out
    }

    /// The bytes of a C string, without its NUL.
    private static func bytes(_ text: UnsafePointer<CChar>) -> [UInt8] {
        var count = 0
        while text[count] != 0 { count += 1 }
        return Array(UnsafeRawBufferPointer(start: text, count: count))
    }
}
