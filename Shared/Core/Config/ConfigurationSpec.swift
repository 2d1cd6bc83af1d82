/// The settings of one service and how they are loaded.
///
/// Every setting is an environment variable `MAILWAKE_<SERVICE>_<NAME>`.
/// A service may also be given `--config FILE`, a systemd `EnvironmentFile`
/// style file of `KEY=value` lines (see `EnvironmentFile`).
///
/// Precedence, highest first:
/// 1. the process environment,
/// 2. the `--config` file,
/// 3. the setting's documented default.
///
/// A secret setting may instead be given as `<KEY>_FILE=/path` (Docker and
/// systemd credentials): the file's content, without one trailing newline,
/// is the value. `KEY` and `KEY_FILE` from the same place is an error; the
/// environment's `KEY_FILE` beats the file's `KEY` and the other way round.
///
/// In the config file, an unknown `MAILWAKE_<SERVICE>_*` key is an error
/// (a typo must not silently fall back to a default); other keys are left for
/// other programs. Unknown `MAILWAKE_<SERVICE>_*` environment variables are
/// reported as warnings only, because orchestrators add variables of their
/// own (Kubernetes service links add `<NAME>_PORT`, `<NAME>_SERVICE_HOST`).
///
/// Loading stops at the first bad setting with one line naming the key and
/// where the value came from; a secret's value is never shown.
public struct ConfigurationSpec: Sendable {
    /// The service (`outpost`, `relay`, `accounts`).
    public let service: String
    public let settings: [any AnyConfigurationSetting]

    public init(service: String, settings: [any AnyConfigurationSetting]) {
        self.service = service
        self.settings = settings
        var names = Set<String>()
        for s in settings {
            precondition(names.insert(s.name).inserted, "setting \(s.name) listed twice")
        }
        for s in settings where s.isSecret {
            precondition(!names.contains(s.name + "_FILE"), "\(s.name)_FILE would be ambiguous with the secret \(s.name)")
        }
    }

    /// `MAILWAKE_<SERVICE>_`.
    public var prefix: String { "MAILWAKE_" + String(service.uppercased().map { $0 == "-" ? "_" : $0 }) + "_" }

    /// The full variable name of `setting`.
    public func key(_ setting: any AnyConfigurationSetting) -> String { prefix + setting.name }

    /// The `--config FILE` option for a command's `CommandSpec`.
    public static let configOption = OptionSpec(
        "config", value: "FILE",
        help: "read settings from FILE (KEY=value lines, systemd EnvironmentFile format); environment variables override it")

    /// Loads with `--config` from parsed arguments (when given) and the process environment.
    public func load(arguments: ParsedArguments,
                     environment: [String: String] = ProcessEnvironment.current()) throws(ConfigurationError) -> ServiceConfiguration {
        try load(configFile: arguments.value("config"), environment: environment)
    }

    /// Loads from an optional config file and an environment.
    public func load(configFile: String? = nil, environment: [String: String]) throws(ConfigurationError) -> ServiceConfiguration {
        var warnings: [String] = []
        var fileRaw: [String: Given] = [:]
        if let configFile {
            let file = try EnvironmentFile(contentsOf: configFile)
            fileRaw = try given(file.entries.map { ($0.key, $0.value, ConfigurationSource.file(path: configFile, line: $0.line)) },
                                strict: true, warnings: &warnings)
            if let mode = FileReading.mode(configFile), mode & 0o007 != 0, fileRaw.values.contains(where: { $0.setting.isSecret }) {
                warnings.append("\(configFile) holds secret settings and can be read by other users (mode \(String(mode, radix: 8))); " +
                                "chmod 600 or 640 it")
            }
        }
        let envRaw = try given(environment.map { ($0.key, $0.value, ConfigurationSource.environment) }, strict: false, warnings: &warnings)

        var values: [String: any Sendable] = [:]
        var sources: [String: ConfigurationSource] = [:]
        for setting in settings {
            let key = self.key(setting)
            guard let chosen = envRaw[setting.name] ?? fileRaw[setting.name] else {
                let fallback: (any Sendable)?
                do {
                    fallback = try setting.fallbackAny()
                } catch {
                    throw ConfigurationError(key: key, reason: "the default \(error.reason) (a bug in the program)", source: .defaultValue)
                }
                guard let fallback else { throw ConfigurationError(key: key, reason: "is required and not set") }
                values[setting.name] = fallback
                sources[setting.name] = .defaultValue
                continue
            }
            var raw = chosen.raw
            var source = chosen.source
            if chosen.isFileReference {
                let path = raw
                guard !path.isEmpty else { throw ConfigurationError(key: key + "_FILE", reason: "must name a file", source: source) }
                do {
                    raw = try Self.readSecretFile(path)
                } catch {
                    throw ConfigurationError(key: key + "_FILE", reason: "cannot read \(path): \(error.reason)", source: source)
                }
                source = .secretFile(path: path, via: source)
            }
            do {
                values[setting.name] = try setting.parseAny(raw)
            } catch {
                throw ConfigurationError(
                    key: key, reason: error.reason, source: source,
                    shownValue: setting.isSecret ? nil : ConfigurationError.displayable(raw))
            }
            sources[setting.name] = source
        }
        return ServiceConfiguration(
            prefix: prefix, values: values, sources: sources,
            secretNames: Set(settings.filter(\.isSecret).map(\.name)), warnings: warnings)
    }

    struct Given {
        let setting: any AnyConfigurationSetting
        let raw: String
        let source: ConfigurationSource
        let isFileReference: Bool
    }

    /// Matches `MAILWAKE_<SERVICE>_*` variables to settings (and secret `_FILE`
    /// references). Unknown ones are errors when `strict`, warnings otherwise.
    private func given(_ pairs: [(String, String, ConfigurationSource)], strict: Bool,
                       warnings: inout [String]) throws(ConfigurationError) -> [String: Given] {
        let byName = Dictionary(uniqueKeysWithValues: settings.map { ($0.name, $0) })
        var out: [String: Given] = [:]
        for (key, raw, source) in pairs.sorted(by: { $0.0 < $1.0 }) {
            guard key.hasPrefix(prefix) else {
                if strict, key.uppercased().hasPrefix(prefix) {
                    throw ConfigurationError(key: key, reason: "is not a setting of mailwake-\(service) (names are upper case)",
                                             source: source)
                }
                continue
            }
            let name = String(key.dropFirst(prefix.count))
            var match: Given?
            if let setting = byName[name] {
                match = Given(setting: setting, raw: raw, source: source, isFileReference: false)
            } else if name.hasSuffix("_FILE"), let setting = byName[String(name.dropLast(5))], setting.isSecret {
                match = Given(setting: setting, raw: raw, source: source, isFileReference: true)
            }
            guard let match else {
                if strict {
                    throw ConfigurationError(key: key, reason: "is not a setting of mailwake-\(service) (see --help for the list)",
                                             source: source)
                }
                warnings.append("ignoring unknown environment variable \(key)")
                continue
            }
            if out[match.setting.name] != nil {
                throw ConfigurationError(key: prefix + match.setting.name,
                                         reason: "is given both directly and as \(prefix + match.setting.name)_FILE", source: source)
            }
            out[match.setting.name] = match
        }
        return out
    }

    /// A secret file's content without one trailing newline (at most 64 KiB, UTF-8).
    static func readSecretFile(_ path: String) throws(FileReading.Failure) -> String {
        var bytes = try FileReading.read(path, limit: 65536)
        if bytes.last == UInt8(ascii: "\n") {
            bytes.removeLast()
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw FileReading.Failure(reason: "not UTF-8 text") }
        return text
    }
}
