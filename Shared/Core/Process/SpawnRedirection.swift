/// Where a spawned child's descriptor 0, 1 or 2 comes from.
public enum SpawnRedirection: Sendable, Equatable {
    /// The parent's own descriptor of the same number.
    case inherit
    /// `/dev/null`.
    case null
    /// A file opened in the child (created 0600 when missing), appended to or truncated.
    case file(path: String, append: Bool)
    /// A duplicate of one of the parent's descriptors.
    case descriptor(Int32)
    /// A new pipe; the parent keeps the other end (stdin: write end, stdout or stderr: read end).
    case pipe
    /// For stderr only: the same as the child's stdout.
    case sameAsStdout
}
