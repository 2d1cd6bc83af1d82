/// A node of an `HTMLDocument`, as the sanitizer and the text renderer see it.
enum HTMLNode: Sendable {
    case element(HTMLElement)
    /// Text or whitespace, UTF-8 as the parser decoded it (never with a NUL).
    case text([UInt8])
    /// A comment or a CDATA section: never shown.
    case comment
    /// What the readers skip otherwise: a template, a node the parser left empty.
    case other
}
