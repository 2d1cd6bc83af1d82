/// The text a reader sees in an HTML part, from the same HTML5 parse the
/// body reader uses: `<head>`, scripts and styles contribute nothing, blocks
/// end lines, and character references are decoded exactly once.
public enum HTMLVisibleText {
    /// The visible text of `html`.
    ///
    /// - Parameters:
    ///   - html: the document (UTF-8).
    ///   - maxDepth: nesting beyond this is not parsed; the text is then taken with tags stripped.
    public static func of(_ html: String, maxDepth: Int = HTMLSanitizer.Configuration().maxDepth) -> String {
        let bytes = Array(html.utf8)
        guard HTMLNestingScan.depth(of: bytes, limit: maxDepth) <= maxDepth, let document = HTMLDocument(bytes) else {
            return HTMLTextRenderer.tagStripped(bytes)
        }
        return HTMLTextRenderer.render(document)
    }
}
