import Foundation
import MailwakeCore
import TestSupport
import Testing

enum Mode: String, CaseIterable, Sendable { case fast, safe }

enum OutpostSample {
    static let port: ConfigurationSetting<Int> = .int("ADMIN_PORT", default: 9090, range: 1...65535,
                                                      help: "Port of the admin listener (/metrics, /healthz).")
    static let name: ConfigurationSetting<String> = .string("NAME", default: "outpost", help: "Name shown in the App.")
    static let debug: ConfigurationSetting<Bool> = .bool("DEBUG", default: false, help: "Extra checks.")
    static let drain: ConfigurationSetting<Duration> = .duration("DRAIN_TIMEOUT", default: .seconds(10), range: 0...300,
                                                                 help: "Time to drain on shutdown.")
    static let relay: ConfigurationSetting<ConfigURL> = .url("RELAY_URL", default: "https://relay.mailwake.example", help: "The relay.")
    static let origin: ConfigurationSetting<ConfigURL> = .origin("PUBLIC_ORIGIN", default: "https://outpost.example:8443",
                                                                 help: "Where the App reaches this outpost.")
    static let mode: ConfigurationSetting<Mode> = .choice("MODE", default: .safe, help: "Speed or safety | pick one.")
    static let peers: ConfigurationSetting<[String]> = .list("PEERS", default: [], help: "Other outposts.")
    static let level: ConfigurationSetting<LogLevel> = .logLevel()
    static let password: ConfigurationSetting<String> = .string("IMAP_PASSWORD", secret: true, help: "Password of the mailbox.")
    static let webhook = ConfigurationSetting.url("WEBHOOK_URL", schemes: ["https", "http"], secret: true,
                                                  help: "Webhook to call.").optional()
    static let cert = ConfigurationSetting.existingFile("TLS_CERT", help: "Certificate chain (PEM).").optional()

    static let spec = ConfigurationSpec(service: "outpost",
                                        settings: [port, name, debug, drain, relay, origin, mode, peers, level, password, webhook, cert])
    static let minimal = ["MAILWAKE_OUTPOST_IMAP_PASSWORD": "pw"]
}

@Suite struct ConfigurationTests {
    typealias S = OutpostSample

    func error(_ body: () throws -> Void) -> ConfigurationError? {
        do {
            try body()
            return nil
        } catch let e as ConfigurationError {
            return e
        } catch {
            return nil
        }
    }

    @Test func defaultsAreTypedAndDocumented() throws {
        let config = try S.spec.load(environment: S.minimal)
        #expect(config[S.port] == 9090)
        #expect(config[S.name] == "outpost")
        #expect(config[S.debug] == false)
        #expect(config[S.drain] == .seconds(10))
        #expect(config[S.relay].string == "https://relay.mailwake.example")
        #expect(config[S.origin].origin == "https://outpost.example:8443")
        #expect(config[S.mode] == .safe)
        #expect(config[S.peers] == [])
        #expect(config[S.level] == .info)
        #expect(config[S.webhook] == nil)
        #expect(config[S.cert] == nil)
        #expect(config.source(of: S.port) == .defaultValue)
        #expect(config.source(of: S.password) == .environment)
        #expect(config.warnings.isEmpty)
    }

    @Test func environmentOverridesFileOverridesDefault() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let file = try dir.write("outpost.env", """
            MAILWAKE_OUTPOST_ADMIN_PORT=1000
            MAILWAKE_OUTPOST_NAME=from-file
            MAILWAKE_OUTPOST_IMAP_PASSWORD=file-password
            """)
        let env = ["MAILWAKE_OUTPOST_ADMIN_PORT": "2000", "MAILWAKE_OUTPOST_IMAP_PASSWORD": "env-password"]
        let config = try S.spec.load(configFile: file, environment: env)
        #expect(config[S.port] == 2000)
        #expect(config.source(of: S.port) == .environment)
        #expect(config[S.name] == "from-file")
        #expect(config.source(of: S.name) == .file(path: file, line: 2))
        #expect(config[S.password] == "env-password")
        #expect(config[S.drain] == .seconds(10))
        #expect(config.source(of: S.drain) == .defaultValue)
    }

    @Test func fileQuotesCommentsAndNoExpansion() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let file = try dir.write("outpost.env", #"""
            # a comment
              ; another comment

            MAILWAKE_OUTPOST_NAME = "two words \"quoted\" \\ and \$HOME"
            MAILWAKE_OUTPOST_IMAP_PASSWORD='lit$HOME\n ${X} "x" # not a comment'
            MAILWAKE_OUTPOST_PEERS=a.example, b.example ,,c.example   
            MAILWAKE_OUTPOST_MODE=fast
            MAILWAKE_OUTPOST_DEBUG=Yes
            MAILWAKE_OUTPOST_DRAIN_TIMEOUT=2.5
            MAILWAKE_OUTPOST_LOG_LEVEL=DEBUG
            OTHER_PROGRAM_SETTING=whatever
            MAILWAKE_RELAY_PORT=1
            """#)
        let config = try S.spec.load(configFile: file, environment: [:])
        #expect(config[S.name] == #"two words "quoted" \ and $HOME"#)
        #expect(config[S.password] == #"lit$HOME\n ${X} "x" # not a comment"#)
        #expect(config[S.peers] == ["a.example", "b.example", "c.example"])
        #expect(config[S.mode] == .fast)
        #expect(config[S.debug] == true)
        #expect(config[S.drain] == .milliseconds(2500))
        #expect(config[S.level] == .debug)
    }

    @Test func environmentFileDetails() throws {
        let text = "A=x\\\ny\nB=\"multi\nline\"\nC=trailing\\ \nD=\nE=a=b\nF=  x  \n"
        let file = try EnvironmentFile(parsing: text, path: "t.env")
        #expect(file.entries.map(\.key) == ["A", "B", "C", "D", "E", "F"])
        #expect(file["A"]?.value == "xy")
        #expect(file["B"]?.value == "multi\nline")
        #expect(file["C"]?.value == "trailing ")
        #expect(file["D"]?.value == "")
        #expect(file["E"]?.value == "a=b")
        #expect(file["F"]?.value == "x")
        #expect(file["C"]?.line == 5)
        #expect(try EnvironmentFile(parsing: "\u{FEFF}A=1\r\nB=2\r\n", path: "t").entries.map(\.value) == ["1", "2"])
    }

    @Test(arguments: [
        ("A=1\njust words\n", "line 2: expected KEY=value"),
        ("A=\"open\n", "line 1: unterminated double quote"),
        ("A='open", "line 1: unterminated single quote"),
        ("A=1\nA=2\n", "line 2: A is set twice (also on line 1)"),
        ("A=\"x\" y\n", "line 1: unexpected text after the closing quote"),
        ("export A=1\n", "line 1: 'export A' is not a valid variable name"),
        ("1A=1\n", "line 1: '1A' is not a valid variable name"),
    ])
    func environmentFileErrorsNameTheLine(text: String, expected: String) {
        let e = error { _ = try EnvironmentFile(parsing: text, path: "/etc/mailwake/outpost.env") }
        #expect(e?.key == "--config")
        #expect(e?.description == "configuration: --config: /etc/mailwake/outpost.env \(expected)")
    }

    @Test(arguments: [
        ("MAILWAKE_OUTPOST_ADMIN_PORT", "abc", "must be an integer from 1 to 65535"),
        ("MAILWAKE_OUTPOST_ADMIN_PORT", "70000", "must be an integer from 1 to 65535"),
        ("MAILWAKE_OUTPOST_ADMIN_PORT", "", "must be an integer from 1 to 65535"),
        ("MAILWAKE_OUTPOST_MODE", "turbo", "must be one of fast, safe"),
        ("MAILWAKE_OUTPOST_DEBUG", "maybe", "must be true or false"),
        ("MAILWAKE_OUTPOST_DRAIN_TIMEOUT", "-1", "must be a number of seconds from 0 to 300"),
        ("MAILWAKE_OUTPOST_DRAIN_TIMEOUT", "1e3", "must be a number of seconds from 0 to 300"),
        ("MAILWAKE_OUTPOST_DRAIN_TIMEOUT", "301", "must be a number of seconds from 0 to 300"),
        ("MAILWAKE_OUTPOST_LOG_LEVEL", "loud", "must be one of trace, debug, info, notice, warning, error, critical"),
        ("MAILWAKE_OUTPOST_RELAY_URL", "http://relay.example", "must be an absolute https URL"),
        ("MAILWAKE_OUTPOST_RELAY_URL", "https://relay.example:0/x", "has an invalid port (1 to 65535)"),
        ("MAILWAKE_OUTPOST_PUBLIC_ORIGIN", "https://outpost.example/path",
         "must be an origin (scheme://host[:port]) without a path or query"),
        ("MAILWAKE_OUTPOST_TLS_CERT", "/nonexistent/cert.pem", "names a file that does not exist"),
    ])
    func badValuesFailWithOneLineNamingTheKey(key: String, value: String, reason: String) {
        var env = S.minimal
        env[key] = value
        let e = error { _ = try S.spec.load(environment: env) }
        #expect(e?.key == key)
        #expect(e?.description == "configuration: \(key)=\"\(value)\" (environment): \(reason)")
        #expect(e?.description.contains("\n") == false)
    }

    @Test func valuesWithControlCharactersStayOnOneLine() {
        let e = error { _ = try S.spec.load(environment: S.minimal.merging(["MAILWAKE_OUTPOST_ADMIN_PORT": "80\n81"]) { $1 }) }
        #expect(e?.description == "configuration: MAILWAKE_OUTPOST_ADMIN_PORT=\"80?81\" (environment): must be an integer from 1 to 65535")
    }

    @Test func secretValuesAreNeverEchoed() throws {
        let secretURL = "http://user:hunter2@hooks.example/T0KEN"
        let e = try #require(error { _ = try S.spec.load(environment: S.minimal.merging(["MAILWAKE_OUTPOST_WEBH" +
                                                                                         "OOK_URL": secretURL]) { $1 }) })
        #expect(e.key == "MAILWAKE_OUTPOST_WEBHOOK_URL")
        #expect(!e.description.contains("hunter2"))
        #expect(!e.description.contains("T0KEN"))
        #expect(e.description == "configuration: MAILWAKE_OUTPOST_WEBHOOK_URL (environment): must not contain a user name or password " +
                                 "(put credentials in their secret setting)")

        let empty = try #require(error { _ = try S.spec.load(environment: ["MAILWAKE_OUTPOST_IMAP_PASSWORD": ""]) })
        #expect(empty.description == "configuration: MAILWAKE_OUTPOST_IMAP_PASSWORD (environment): must not be empty")

        // The start-up summary hides secrets too.
        let config = try S.spec.load(environment: ["MAILWAKE_OUTPOST_IMAP_PASSWORD": "s3cret-pw",
                                                   "MAILWAKE_OUTPOST_WEBHOOK_URL": "https://hooks.example/T0KEN"])
        let summary = config.summary.joined(separator: "\n")
        #expect(summary.contains("MAILWAKE_OUTPOST_IMAP_PASSWORD=(secret) (environment)"))
        #expect(summary.contains("MAILWAKE_OUTPOST_ADMIN_PORT=\"9090\" (default)"))
        #expect(summary.contains("MAILWAKE_OUTPOST_TLS_CERT=(not set) (default)"))
        #expect(summary.contains("MAILWAKE_OUTPOST_DRAIN_TIMEOUT=\"10\" (default)"))
        #expect(summary.contains("MAILWAKE_OUTPOST_RELAY_URL=\"https://relay.mailwake.example\" (default)"))
        #expect(summary.contains("MAILWAKE_OUTPOST_MODE=\"safe\" (default)"))
        #expect(!summary.contains("s3cret-pw"))
        #expect(!summary.contains("T0KEN"))
        #expect(config[S.webhook]?.host == "hooks.example")
    }

    @Test func requiredSettingMissing() {
        let e = error { _ = try S.spec.load(environment: [:]) }
        #expect(e?.description == "configuration: MAILWAKE_OUTPOST_IMAP_PASSWORD: is required and not set")
    }

    @Test func secretsFromFiles() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let secret = try dir.write("imap_password", "p@ss word\n")
        let config = try S.spec.load(environment: ["MAILWAKE_OUTPOST_IMAP_PASSWORD_FILE": secret])
        #expect(config[S.password] == "p@ss word")
        #expect(config.source(of: S.password) == .secretFile(path: secret, via: .environment))

        // Only one trailing newline is removed; CRLF too.
        let crlf = try dir.write("crlf", "a\n\r\n")
        #expect(try S.spec.load(environment: ["MAILWAKE_OUTPOST_IMAP_PASSWORD_FILE": crlf])[S.password] == "a\n")

        // Named in the config file, beaten by the environment's direct value.
        let envFile = try dir.write("outpost.env", "MAILWAKE_OUTPOST_IMAP_PASSWORD_FILE=\(secret)\n")
        #expect(try S.spec.load(configFile: envFile, environment: [:])[S.password] == "p@ss word")
        #expect(try S.spec.load(configFile: envFile, environment: S.minimal)[S.password] == "pw")

        // Both forms in one place is an error.
        let both = error { _ = try S.spec.load(environment: ["MAILWAKE_OUTPOST_IMAP_PASSWORD_FILE": secret,
                                                             "MAILWAKE_OUTPOST_IMAP_PASSWORD": "x"]) }
        #expect(both?.key == "MAILWAKE_OUTPOST_IMAP_PASSWORD")

        // A missing file names the key and the path, never content.
        let missing = error { _ = try S.spec.load(environment: ["MAILWAKE_OUTPOST_IMAP_PASSWORD_FILE": dir.path + "/nope"]) }
        #expect(missing?.key == "MAILWAKE_OUTPOST_IMAP_PASSWORD_FILE")
        #expect(missing?.description.contains("cannot read \(dir.path)/nope: No such file or directory") == true)

        // A bad secret from a file is not echoed either.
        let badURL = try dir.write("hook", "ftp://secret-host/x")
        let bad = error { _ = try S.spec.load(environment: S.minimal.merging(["MAILWAKE_OUTPOST_WEBHOOK_URL_FILE": badURL]) { $1 }) }
        #expect(bad?.key == "MAILWAKE_OUTPOST_WEBHOOK_URL")
        #expect(bad?.description.contains("secret-host") == false)

        // `_FILE` exists only for secrets.
        let notSecret = try dir.write("port.env", "MAILWAKE_OUTPOST_ADMIN_PORT_FILE=\(secret)\n")
        #expect(error { _ = try S.spec.load(configFile: notSecret, environment: S.minimal) }?.key == "MAILWAKE_OUTPOST_ADMIN_PORT_FILE")
    }

    @Test func unknownKeysInTheFileAreErrorsInTheEnvironmentWarnings() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let file = try dir.write("outpost.env", "MAILWAKE_OUTPOST_ADMN_PORT=1\n")
        let e = error { _ = try S.spec.load(configFile: file, environment: S.minimal) }
        #expect(e?.description == "configuration: MAILWAKE_OUTPOST_ADMN_PORT (\(file) line 1): is not a setting of mailwake-outpost " +
                                  "(see --help for the list)")

        var env = S.minimal
        env["MAILWAKE_OUTPOST_SERVICE_HOST"] = "10.0.0.1"
        env["MAILWAKE_RELAY_ADMIN_PORT"] = "1"
        env["PATH"] = "/bin"
        let config = try S.spec.load(environment: env)
        #expect(config.warnings == ["ignoring unknown environment variable MAILWAKE_OUTPOST_SERVICE_HOST"])

        let lower = try dir.write("lower.env", "mailwake_outpost_admin_port=1\n")
        #expect(error { _ = try S.spec.load(configFile: lower,
                                            environment: S.minimal) }?.reason == "is not a setting of mailwake-outpost (names are " +
                                                                                 "upper case)")

        let missing = error { _ = try S.spec.load(configFile: dir.path + "/absent.env", environment: S.minimal) }
        #expect(missing?.key == "--config")
    }

    @Test func readableConfigFileWithSecretsIsAWarning() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let file = try dir.write("outpost.env", "MAILWAKE_OUTPOST_IMAP_PASSWORD=pw\n", mode: 0o644)
        let config = try S.spec.load(configFile: file, environment: [:])
        #expect(config.warnings.count == 1)
        #expect(config.warnings.first?.contains("can be read by other users (mode 644)") == true)
        #expect(config.warnings.first?.contains("pw\"") == false)
    }

    @Test func existingFileSetting() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let cert = try dir.write("cert.pem", "-----BEGIN CERTIFICATE-----\n")
        let config = try S.spec.load(environment: S.minimal.merging(["MAILWAKE_OUTPOST_TLS_CERT": cert]) { $1 })
        #expect(config[S.cert] == cert)
        let directory = error { _ = try S.spec.load(environment: S.minimal.merging(["MAILWAKE_OUTPOST_TLS_CERT": dir.path]) { $1 }) }
        #expect(directory?.reason == "names something that is not a regular file")
    }

    @Test func urlsAreCheckedStrictly() throws {
        let url = try ConfigURL.parse("HTTPS://Relay.Example:8443/v1/submit?x=1", schemes: ["https"])
        #expect(url.string == "https://relay.example:8443/v1/submit?x=1")
        #expect(url.origin == "https://relay.example:8443")
        #expect(url.effectivePort == 8443)
        let v6 = try ConfigURL.parse("https://[::1]:9443", schemes: ["https"], originOnly: true)
        #expect(v6.host == "::1")
        #expect(v6.origin == "https://[::1]:9443")
        #expect(try ConfigURL.parse("http://localhost", schemes: ["http"]).effectivePort == 80)
        for bad in ["https://", "https:///x", "relay.example", "https://a b", "https://host:99999", "https://ho$t", "https://[::1"] {
            #expect(throws: ConfigurationValueError.self, "\(bad)") { try ConfigURL.parse(bad, schemes: ["https"]) }
        }
    }

    @Test func markdownTableAndHelp() {
        let table = S.spec.markdownTable()
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines[0] == "| key | default | meaning |")
        #expect(lines[1] == "| --- | --- | --- |")
        #expect(lines.count == 2 + S.spec.settings.count)
        #expect(lines.contains("| `MAILWAKE_OUTPOST_ADMIN_PORT` | `9090` | Port of the admin listener (/metrics, /healthz). Integer " +
                               "1–65535. |"))
        #expect(lines.contains("| `MAILWAKE_OUTPOST_MODE` | `safe` | Speed or safety \\| pick one. One of fast, safe. |"))
        #expect(lines.contains { $0.hasPrefix("| `MAILWAKE_OUTPOST_IMAP_PASSWORD` | (required) |")
            && $0.contains("`MAILWAKE_OUTPOST_IMAP_PASSWORD_FILE`") })
        #expect(lines.contains { $0.hasPrefix("| `MAILWAKE_OUTPOST_WEBHOOK_URL` | (not set) |") })
        #expect(lines.contains { $0.hasPrefix("| `MAILWAKE_OUTPOST_DRAIN_TIMEOUT` | `10` | Time to drain on shutdown. Seconds.") })
        // Every row has exactly three cells.
        for line in lines {
            let unescapedPipes = line.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count
            #expect(unescapedPipes == 4, "\(line)")
        }
        let help = S.spec.helpText()
        #expect(help.contains("  MAILWAKE_OUTPOST_ADMIN_PORT  integer 1–65535, default 9090\n      Port of the admin listener"))
        #expect(help.contains("the environment wins over the file"))
        #expect(S.spec.prefix == "MAILWAKE_OUTPOST_")
        #expect(ConfigurationSpec(service: "protocol-bench", settings: []).prefix == "MAILWAKE_PROTOCOL_BENCH_")
    }

    @Test func loadsFromParsedArguments() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let file = try dir.write("o.env", "MAILWAKE_OUTPOST_IMAP_PASSWORD=pw\nMAILWAKE_OUTPOST_ADMIN_PORT=7000\n")
        let command = CommandSpec("serve", summary: "run", options: [ConfigurationSpec.configOption])
        let config = try S.spec.load(arguments: try command.parse(["--config", file]), environment: [:])
        #expect(config[S.port] == 7000)
    }
}

@Suite struct ConfigurationDocumentationTests {
    /// The example in docs/configuration.md parses to what the comments in it say.
    @Test func documentedExampleParsesAsDescribed() throws {
        let doc = String(decoding: try RepositoryPaths.bytes("docs/configuration.md"), as: UTF8.self)
        let start = try #require(doc.range(of: "```sh\n"))
        let end = try #require(doc.range(of: "```", range: start.upperBound..<doc.endIndex))
        let file = try EnvironmentFile(parsing: String(doc[start.upperBound..<end.lowerBound]), path: "docs/configuration.md")
        #expect(file["MAILWAKE_RELAY_ADMIN_LISTEN"]?.value == "127.0.0.1:9090")
        #expect(file["MAILWAKE_RELAY_INSTANCE_NAME"]?.value == "eu-1 #1")
        #expect(file["MAILWAKE_RELAY_DATABASE_URL"]?.value == "postgres://relay:pa$$word@db.internal/relay?sslmode=verify-full")
    }
}
