#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exit codes shared by every Mailwake command-line tool (DESIGN.md §4).
public enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    case usage = 2
}

/// A tool made of named commands: `tool <command> [options]`, `--help` on
/// every level, exit codes 0 / 1 / 2.
public struct CommandLineTool: Sendable {
    /// A command and the code that runs it; it returns the exit code.
    public struct Command: Sendable {
        public var spec: CommandSpec
        public var run: @Sendable (ParsedArguments) async throws -> ExitCode

        public init(_ spec: CommandSpec, run: @escaping @Sendable (ParsedArguments) async throws -> ExitCode) {
            self.spec = spec
            self.run = run
        }
    }

    public var name: String
    public var summary: String
    public var version: String
    public var commands: [Command]

    public init(name: String, summary: String, version: String, commands: [Command]) {
        self.name = name
        self.summary = summary
        self.version = version
        self.commands = commands
    }

    /// The top-level `--help` text.
    public var help: String {
        var lines = ["usage: \(name) <command> [options]", "", summary, "", "commands:"]
        let width = commands.map(\.spec.name.count).max() ?? 0
        for c in commands {
            lines.append("  " + c.spec.name.padded(to: width + 2) + c.spec.summary)
        }
        lines += ["", "Run '\(name) <command> --help' for a command's options.", "'\(name) --version' prints the version."]
        return lines.joined(separator: "\n")
    }

    /// Runs the tool with `arguments` (without the program name) and returns the exit code.
    ///
    /// Errors thrown by a command are printed to stderr as one line and give exit 1;
    /// usage errors give exit 2.
    public func run(_ arguments: [String]) async -> ExitCode {
        guard let first = arguments.first else {
            StandardStreams.writeError(help + "\n")
            return .usage
        }
        if first == "--help" || first == "-h" || first == "help" {
            StandardStreams.write(help + "\n")
            return .success
        }
        if first == "--version" {
            StandardStreams.write("\(name) \(version)\n")
            return .success
        }
        // Commands may be groups of words (`relay set`, `devices list`): the
        // longest name whose words start the arguments wins.
        let matched = commands
            .map { (command: $0, words: $0.spec.name.split(separator: " ").map(String.init)) }
            .filter { arguments.count >= $0.words.count && Array(arguments.prefix($0.words.count)) == $0.words }
            .max { $0.words.count < $1.words.count }
        guard let (command, words) = matched else {
            let group = commands.filter { $0.spec.name.hasPrefix(first + " ") }
            if !group.isEmpty {
                let text = groupHelp(first, group)
                let asked = arguments.count > 1 && ["--help", "-h", "help"].contains(arguments[1])
                asked ? StandardStreams.write(text + "\n") : StandardStreams.writeError(text + "\n")
                return asked ? .success : .usage
            }
            StandardStreams.writeError("\(name): unknown command '\(first)'\nRun '\(name) --help' for the list.\n")
            return .usage
        }
        let commandName = words.joined(separator: " ")
        let parsed: ParsedArguments
        do {
            parsed = try command.spec.parse(Array(arguments.dropFirst(words.count)))
        } catch let error {
            if error.isHelpRequest {
                StandardStreams.write(command.spec.help(tool: name) + "\n")
                return .success
            }
            StandardStreams.writeError("\(name) \(commandName): \(error.message)\nRun '\(name) \(commandName) --help' for usage.\n")
            return .usage
        }
        do {
            return try await command.run(parsed)
        } catch let error as UsageError {
            StandardStreams.writeError("\(name) \(commandName): \(error.message)\n")
            return .usage
        } catch {
            StandardStreams.writeError("\(name) \(commandName): \(error)\n")
            return .failure
        }
    }

    /// `tool group --help`: the commands of one group.
    func groupHelp(_ group: String, _ members: [Command]) -> String {
        var lines = ["usage: \(name) \(group) <command> [options]", "", "commands:"]
        let width = members.map(\.spec.name.count).max() ?? 0
        for c in members { lines.append("  " + c.spec.name.padded(to: width + 2) + c.spec.summary) }
        lines += ["", "Run '\(name) \(group) <command> --help' for a command's options."]
        return lines.joined(separator: "\n")
    }

    /// Runs with the process arguments and exits with the result.
    public func main() async -> Never {
        let code = await run(Array(CommandLine.arguments.dropFirst()))
        exit(code.rawValue)
    }
}
