/// Where a setting's value came from (for error messages and start-up logs; never the value).
public enum ConfigurationSource: Sendable, Hashable, CustomStringConvertible {
    /// The documented default.
    case defaultValue
    /// A `KEY=value` line of the `--config` file.
    case file(path: String, line: Int)
    /// A process environment variable.
    case environment
    /// A `<KEY>_FILE` reference (Docker secrets) found in `via`.
    indirect case secretFile(path: String, via: ConfigurationSource)

    public var description: String {
        switch self {
        case .defaultValue: "default"
        case .file(let path, let line): "\(path) line \(line)"
        case .environment: "environment"
        case .secretFile(let path, let via): "file \(path) named in \(via)"
        }
    }
}
