/// Why a value was refused, in words that never repeat the value
/// (`must be an integer from 1 to 65535`). The loader adds the key, the
/// source, and the value itself only when the setting is not secret.
public struct ConfigurationValueError: Error, Sendable, Equatable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
}
