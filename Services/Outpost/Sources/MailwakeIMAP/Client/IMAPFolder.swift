/// A mailbox (folder) from LIST.
public struct IMAPFolder: Sendable, Equatable {
    /// The name decoded from modified UTF-7.
    public let name: String
    /// The name as the server spells it (for commands).
    public let encodedName: String
    public let delimiter: String?
    /// `\Noselect`, `\HasChildren`, `\Sent`, `\Junk`…
    public let attributes: [String]

    /// False for `\Noselect` / `\NonExistent` containers.
    public var isSelectable: Bool {
        !attributes.contains { $0.caseInsensitiveCompare("\\Noselect") == .orderedSame
            || $0.caseInsensitiveCompare("\\NonExistent") == .orderedSame }
    }
}
