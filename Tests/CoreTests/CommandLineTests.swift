@testable import MailwakeCore
import Testing

@Suite struct CommandLineTests {
    static let add = CommandSpec(
        "add", summary: "Add a mailbox.", positionals: ["NAME"],
        options: [
            OptionSpec("host", value: "HOST", required: true, help: "IMAP host"),
            OptionSpec("port", value: "PORT", help: "IMAP port"),
            OptionSpec("token", value: "B64U", help: "a token"),
            OptionSpec("dry-run", help: "only check"),
        ])

    func usage(_ body: () throws -> Any) -> UsageError? {
        do {
            _ = try body()
            return nil
        } catch let error as UsageError {
            return error
        } catch {
            return nil
        }
    }

    @Test func optionsInBothSpellingsAndFlags() throws {
        let a = try Self.add.parse(["inbox", "--host", "imap.example", "--port=993", "--dry-run"])
        #expect(a.positionals == ["inbox"])
        #expect(a.value("host") == "imap.example")
        #expect(try a.int64("port") == 993)
        #expect(a.flag("dry-run"))
        #expect(!a.flag("other"))
        #expect(a.value("token") == nil)
        #expect(try a.required("host") == "imap.example")
    }

    @Test func valuesMayStartWithDashes() throws {
        let a = try Self.add.parse(["--host", "-weird-host", "--token", "--AbC_-", "-5"])
        #expect(a.value("host") == "-weird-host")
        #expect(a.value("token") == "--AbC_-")
        #expect(a.positionals == ["-5"])
        let b = try Self.add.parse(["--host=--x", "--token=-h", "--", "--not-an-option"])
        #expect(b.value("host") == "--x")
        #expect(b.value("token") == "-h")
        #expect(b.positionals == ["--not-an-option"])
        #expect(try Self.add.parse(["--host", "h", "--token=", "n"]).value("token") == "")
    }

    /// Pairing and device ids are base64url, and one in 4,096 begins with `--` (the CLI test that unpaired a random
    /// pairing met one): the user pastes it where the command expects it.
    @Test func aPositionalIdentifierThatBeginsWithTwoDashesIsAValue() throws {
        let a = try Self.add.parse(["--C14jgGtkQ_08sOF2U4gg", "--host", "h"])
        #expect(a.positionals == ["--C14jgGtkQ_08sOF2U4gg"])
        #expect(a.value("host") == "h")
        #expect(try Self.add.parse(["--host", "h", "--_x"]).positionals == ["--_x"])
        #expect(try Self.add.parse(["--host", "h", "--9lives"]).positionals == ["--9lives"])
        // Spelled as an option (lower-case, digits, hyphens), it is read as one; a lone `--` before it makes it a value.
        #expect(usage { try Self.add.parse(["--abc-123", "--host", "h"]) }?.message.hasPrefix("unknown option --abc-123 for add") == true)
        #expect(try Self.add.parse(["--host", "h", "--", "--abc-123"]).positionals == ["--abc-123"])
    }

    @Test func optionNamesAreLowerCaseLettersDigitsAndHyphens() {
        for name in ["host", "dry-run", "a", "tls2", "x-9"] { #expect(OptionSpec.isValidName(name[...]), "\(name)") }
        for name in ["", "Host", "dry_run", "9lives", "-x", "h=", "hé"] { #expect(!OptionSpec.isValidName(name[...]), "\(name)") }
    }

    @Test func helpAnywhere() {
        #expect(usage { try Self.add.parse(["--help"]) }?.isHelpRequest == true)
        #expect(usage { try Self.add.parse(["inbox", "--host", "h", "-h"]) }?.isHelpRequest == true)
        #expect(usage { try Self.add.parse(["--bogus", "--help"]) }?.isHelpRequest == false)
        let help = Self.add.help(tool: "mailwake-outpost")
        #expect(help.hasPrefix("usage: mailwake-outpost add NAME --host HOST [--port PORT] [--token B64U] [--dry-run]"))
        #expect(help.contains("  --host HOST"))
        #expect(help.contains("--help"))
    }

    @Test func usageErrors() {
        #expect(usage { try Self.add.parse(["inbox"]) }?.message == "missing --host HOST")
        #expect(usage { try Self.add.parse(["inbox", "--host", "h", "--bogus"]) }?.message
                == "unknown option --bogus for add (a value that begins with -- goes after a lone --)")
        let noPositionals = CommandSpec("list", summary: "Lists.", options: [OptionSpec("all", help: "every one")])
        #expect(usage { try noPositionals.parse(["--bogus"]) }?.message == "unknown option --bogus for list")
        #expect(usage { try Self.add.parse(["inbox", "--host", "h", "--host", "i"]) }?.message == "--host given twice")
        #expect(usage { try Self.add.parse(["inbox", "--host"]) }?.message == "--host needs a value HOST")
        #expect(usage { try Self.add.parse(["inbox", "--host", "h", "--dry-run=yes"]) }?.message == "--dry-run takes no value")
        #expect(usage { try Self.add.parse(["--host", "h"]) }?.message == "add expects NAME")
        #expect(usage { try Self.add.parse(["a", "b", "--host", "h"]) }?.message == "add expects NAME")
        #expect(usage { try Self.add.parse(["a", "--host", "h", "--port",
                                            "x"]).int64("port") as Any }?.message == "--port must be an integer, got x")
    }

    static let tool = CommandLineTool(name: "mailwake-test", summary: "A tool for tests.", version: "1.2.3", commands: [
        .init(add) { _ in .success },
        .init(CommandSpec("fail", summary: "Fails.")) { _ in throw TestError() },
        .init(CommandSpec("misuse", summary: "Refuses its input.")) { _ in throw UsageError("bad input") },
        .init(CommandSpec("partial", summary: "Returns 1.")) { _ in .failure },
    ])

    struct TestError: Error {}

    @Test func exitCodesAtEveryLevel() async {
        #expect(await Self.tool.run([]) == .usage)
        #expect(await Self.tool.run(["--help"]) == .success)
        #expect(await Self.tool.run(["-h"]) == .success)
        #expect(await Self.tool.run(["help"]) == .success)
        #expect(await Self.tool.run(["--version"]) == .success)
        #expect(await Self.tool.run(["nope"]) == .usage)
        #expect(await Self.tool.run(["add", "--help"]) == .success)
        #expect(await Self.tool.run(["add", "x", "--host", "h"]) == .success)
        #expect(await Self.tool.run(["add", "x"]) == .usage)
        #expect(await Self.tool.run(["fail"]) == .failure)
        #expect(await Self.tool.run(["misuse"]) == .usage)
        #expect(await Self.tool.run(["partial"]) == .failure)
        #expect(ExitCode.success.rawValue == 0 && ExitCode.failure.rawValue == 1 && ExitCode.usage.rawValue == 2)
        let help = Self.tool.help
        #expect(help.contains("usage: mailwake-test <command> [options]"))
        #expect(help.contains("  add"))
        #expect(help.contains("Run 'mailwake-test <command> --help'"))
    }

    static let grouped = CommandLineTool(name: "mailwake-test", summary: "Grouped commands.", version: "1.0", commands: [
        .init(CommandSpec("devices list", summary: "List devices.")) { _ in .success },
        .init(CommandSpec("devices unpair", summary: "Unpair one.",
                          positionals: ["ID"])) { args in args.positionals == ["d1"] ? .success : .failure },
        .init(CommandSpec("devices", summary: "A command named like the group.",
                          options: [OptionSpec("all", help: "everything")])) { _ in .failure },
    ])

    @Test func commandsOfSeveralWordsRunByTheirLongestName() async {
        #expect(await Self.grouped.run(["devices", "list"]) == .success)
        #expect(await Self.grouped.run(["devices", "unpair", "d1"]) == .success)
        #expect(await Self.grouped.run(["devices", "unpair", "--help"]) == .success)
        #expect(await Self.grouped.run(["devices", "unpair"]) == .usage)
        #expect(await Self.grouped.run(["devices", "--all"]) == .failure)
    }

    @Test func aGroupWithoutItsCommandShowsTheGroupsCommands() async {
        let tool = CommandLineTool(name: "t", summary: "s", version: "1", commands: [
            .init(CommandSpec("relay set", summary: "Set the relay.")) { _ in .success },
            .init(CommandSpec("relay show", summary: "Show the relay.")) { _ in .success },
        ])
        #expect(await tool.run(["relay"]) == .usage)
        #expect(await tool.run(["relay", "--help"]) == .success)
        #expect(await tool.run(["relay", "nope"]) == .usage)
        #expect(tool.groupHelp("relay", tool.commands).contains("relay show"))
    }
}
