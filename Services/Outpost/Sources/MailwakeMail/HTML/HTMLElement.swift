/// An element of an `HTMLDocument`: its tag, its attributes and where its children stand.
struct HTMLElement: Sendable {
    /// The lower-case tag name; "" for a tag the parser does not know.
    let name: String
    /// Whether the element is in the HTML namespace (not SVG or MathML).
    let isHTML: Bool
    /// The attributes in source order.
    let attributes: [HTMLAttribute]
    /// The positions of the children in `HTMLDocument.nodes`, in order.
    let children: Range<Int>

    /// Whether the element has an attribute called `name`.
    func hasAttribute(_ name: String) -> Bool {
        attributes.contains { $0.name == name }
    }

    /// The value of the first attribute called `name`.
    func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }
}
