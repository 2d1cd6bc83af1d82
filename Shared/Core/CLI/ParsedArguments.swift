/// The options and positional arguments of one command invocation.
public struct ParsedArguments: Sendable {
    let values: [String: String]
    let flags: Set<String>
    /// Positional arguments in order.
    public let positionals: [String]

    /// The value of `--name`, or nil.
    public func value(_ name: String) -> String? { values[name] }

    /// The value of a required `--name` (validated by `CommandSpec.parse`).
    public func required(_ name: String) throws(UsageError) -> String {
        guard let v = values[name] else { throw UsageError("missing --\(name)") }
        return v
    }

    /// Whether the flag `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of `--name` as an integer, or nil when absent.
    public func int64(_ name: String) throws(UsageError) -> Int64? {
        guard let v = values[name] else { return nil }
        guard let n = Int64(v) else { throw UsageError("--\(name) must be an integer, got \(v)") }
        return n
    }
}
