/// A command line that cannot be understood: exit code 2.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    /// True when the user asked for `--help` (exit 0 after printing help).
    public let isHelpRequest: Bool

    public init(_ message: String) {
        self.message = message
        isHelpRequest = false
    }

    private init(help: Bool) {
        message = "help requested"
        isHelpRequest = help
    }

    /// `--help` was given.
    public static let helpRequested = UsageError(help: true)

    public var description: String { message }
}
