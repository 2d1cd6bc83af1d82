import Foundation
import MailwakeCore
import MailwakeIMAP
import OutpostService

/// `mailwake-outpost mailbox add|list|remove|test`.
let mailboxCommands: [CommandLineTool.Command] = [
    .init(CommandSpec("mailbox add", summary: "Add an IMAP mailbox to watch (the password or token command is stored encrypted).",
                      options: [
        dataDirOption,
        OptionSpec("label", value: "L", required: true, help: "A name for it, shown in notifications (e.g. Work, Gmail)"),
        OptionSpec("provider", value: "NAME",
                   help: "Fill in a provider's settings: \(ProviderPreset.names.joined(separator: ", ")) (see `mailbox providers`); " +
                         "other options override them"),
        OptionSpec("host", value: "H", help: "The IMAP server, e.g. imap.gmail.com (required without --provider)"),
        OptionSpec("port", value: "P", help: "Default 993 with --tls implicit, 143 with starttls or none"),
        OptionSpec("tls", value: "MODE", help: "implicit (default), starttls, or none (a loopback server only)"),
        OptionSpec("ca-file", value: "FILE", help: "A PEM CA bundle trusted instead of the system's (a private CA)"),
        OptionSpec("user", value: "U", required: true, help: "The login name"),
        OptionSpec("password-stdin", help: "Read the password from standard input (one line)"),
        OptionSpec("oauth2-token-command", value: "CMD",
                   help: "A shell command that prints a fresh OAuth 2 access token (XOAUTH2: Gmail, Outlook)"),
        OptionSpec("folders", value: "LIST", help: "Comma-separated folders to watch (default INBOX)"),
        OptionSpec("max-connections", value: "N", help: "Most connections to this account at once (default 10, or the provider's)"),
        OptionSpec("authserv-id", value: "LIST",
                   help: "Receiving servers whose Authentication-Results to trust for sender authenticity: comma-separated ids, " +
                         "*.domain, or - for Exchange Online (default: the provider's; none without one)"),
        OptionSpec("no-test", help: "Store it without connecting first"),
        ConfigurationSpec.configOption,
    ] + OAuthAuthorization.options, discussion: """
        The mailbox is tested first (connect, TLS, log in, the folders exist) unless --no-test.
        Exactly one of --password-stdin, --oauth and --oauth2-token-command is needed. For iCloud and
        others that ask for one, use an app-specific password.
        """)) { args in
        let label = try args.required("label")
        let providerName = args.value("provider").map(OAuthAuthorization.presetName)
        let preset = try providerName.map { name throws(UsageError) -> ProviderPreset in
            guard let preset = ProviderPreset.all[name] else {
                throw UsageError("--provider must be one of \(ProviderPreset.names.joined(separator: ", ")), got \(name)")
            }
            return preset
        }
        guard !label.isEmpty, label.count <= 64,
        !label.contains(where: \.isNewline) else { throw UsageError("--label must be 1–64 characters on one line") }
        let security: IMAPEndpoint.Security
        switch args.value("tls") ?? preset?.security.rawValue ?? "implicit" {
        case "implicit": security = .implicitTLS
        case "starttls": security = .startTLS
        case "none": security = .none
        default: throw UsageError("--tls must be implicit, starttls or none")
        }
        let port = try args.int64("port").map { p throws(UsageError) -> UInt16 in
            guard let port = UInt16(exactly: p), port > 0 else { throw UsageError("--port must be 1–65535") }
            return port
        }
        guard let host = args.value("host") ?? preset?.host else { throw UsageError("--host is required (or name a --provider)") }
        var endpoint = IMAPEndpoint(host: host, port: port ?? (args.value("tls") == nil ? preset?.port : nil), security: security,
                                    caFile: args.value("ca-file"))
        if security == .none,
        !endpoint.isLoopback { throw UsageError("--tls none is only allowed for a server on this machine (localhost, 127.0.0.1, ::1)") }
        if let ca = endpoint.caFile {
            guard FileManager.default.isReadableFile(atPath: ca) else { throw UsageError("--ca-file \(ca) cannot be read") }
            endpoint.caFile = URL(fileURLWithPath: ca).standardizedFileURL.path
        }
        let usesPassword = args.flag("password-stdin")
        let tokenCommand = args.value("oauth2-token-command")
        let builtInOAuth = OAuthAuthorization.requested(args)
        guard [usesPassword, tokenCommand != nil, builtInOAuth].filter({ $0 }).count == 1 else {
            var hint = ""
            if let preset {
                hint = preset.authentication == .oauth2
                    ? " (\(preset.name) expects OAuth 2: --oauth, or --oauth2-token-command)"
                    : " (\(preset.name): \(preset.passwordNote ?? "the account password"))"
            }
            throw UsageError("give exactly one of --password-stdin, --oauth and --oauth2-token-command" + hint)
        }
        let secret: String
        if usesPassword {
            guard let line = readLine(strippingNewline: true),
                  !line.isEmpty else { throw UsageError("--password-stdin: no password on standard input") }
            secret = line
        } else if builtInOAuth {
            let (existing, _) = try await openStore(args)   // before the browser: an unknown data dir or a taken label fails now
            let taken = try await existing.mailbox(label: label) != nil
            await existing.close()
            if taken { throw OutpostCommandError("a mailbox labelled '\(label)' exists already: pick another --label or remove it first") }
            secret = try await OAuthAuthorization.run(args, provider: providerName, user: try args.required("user"))
        } else {
            guard !OAuthGrant.isGrant(tokenCommand!) else { throw UsageError("--oauth2-token-command is not a shell command") }
            secret = tokenCommand!
        }
        let folders = (args.value("folders")
            ?? "INBOX").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !folders.isEmpty else { throw UsageError("--folders names no folder") }
        let maxConnections = Int(try args.int64("max-connections") ?? Int64(preset?.maxConnections ?? 10))
        guard (1...100).contains(maxConnections) else { throw UsageError("--max-connections must be 1–100") }
        let trusted = try args.value("authserv-id").map(parseAuthservIDs) ?? preset?.trustedAuthservIDs ?? []
        let record = MailboxRecord(label: label, endpoint: endpoint, username: try args.required("user"),
                                   authentication: usesPassword ? .password : .oauth2, folders: folders, maxConnections: maxConnections,
                                   trustedAuthservIDs: trusted, idleRestart: preset?.idleRestart,
                                   provider: providerName)
        if !args.flag("no-test") {
            say("Testing \(endpoint.host):\(endpoint.port)…")
            let report = try await MailboxProbe.run(record, secret: secret)
            say(report.text)
            let missing = folders.filter { f in !report.folders.contains { $0.name == f } }
            if !missing.isEmpty { throw OutpostCommandError("the server has no folder \(missing.joined(separator: ", ")) (see the " +
                                                            "list above)") }
        }
        let (store, _) = try await openStore(args)
        defer { Task { await store.close() } }
        try await store.addMailbox(record, secret: secret)
        await store.close()
        say("Mailbox '\(label)' added: watching \(folders.joined(separator: ", ")). A running `serve` starts watching it within 30 " +
            "seconds.")
        return .success
    },
    .init(CommandSpec("mailbox list", summary: "List the mailboxes and how their folders are being watched.",
                      options: [dataDirOption])) { args in
        let (store, _) = try await openStore(args)
        let mailboxes = try await store.mailboxes()
        let states = try await store.folderStates()
        var builtInOAuth: Set<Int64> = []
        for m in mailboxes where m.authentication == .oauth2 {
            if OAuthGrant.isGrant(try await store.mailboxSecret(m.id)) { builtInOAuth.insert(m.id) }
        }
        await store.close()
        if mailboxes.isEmpty { say("No mailboxes. Add one with `mailwake-outpost mailbox add`.") }
        for m in mailboxes {
            let auth =
                m.authentication == .password ? "password" : builtInOAuth.contains(m.id) ? "OAuth 2 (built-in)" : "OAuth 2 (token command)"
            say("\(m.label)  \(m.username) @ \(m.endpoint.host):\(m.endpoint.port) (\(m.endpoint.security.rawValue) TLS), " +
                "\(auth)\(m.enabled ? "" : ", disabled")")
            let trust = m.trustedAuthservIDs.isEmpty ? "no receiving server trusted (sender authenticity " +
                                                       "unknown)" : "trusting \(m.trustedAuthservIDs.joined(separator: ", "))"
            say("    \(m.provider.flatMap { ProviderPreset.all[$0]?.name }.map { $0 + ", " } ?? "")\(trust)")
            for folder in m.folders {
                let s = states.first { $0.mailboxID == m.id && $0.folder == folder }
                say("    \(folder): \(s.map(describe) ?? "not watched yet")")
            }
        }
        return .success
    },
    .init(CommandSpec("mailbox trust",
                      summary: "Set the receiving servers whose Authentication-Results decide sender authenticity (sender_auth).",
                      positionals: ["LABEL", "AUTHSERV_IDS"], options: [dataDirOption], discussion: """
        AUTHSERV_IDS is comma-separated: exact ids (mx.google.com), *.domain for a provider's hosts
        (*.messagingengine.com), - for Exchange Online's headers without an id, or "" to trust none.
        """),
          run: { args in
        let label = args.positionals[0]
        let trusted = try parseAuthservIDs(args.positionals[1])
        let (store, _) = try await openStore(args)
        guard let record = try await store.mailbox(label: label) else {
            await store.close()
            throw OutpostCommandError("no mailbox labelled '\(label)' (see `mailwake-outpost mailbox list`)")
        }
        _ = try await store.updateMailbox(record.id, trustedAuthservIDs: trusted)
        await store.close()
        say(trusted.isEmpty ? "Mailbox '\(label)' trusts no receiving server: sender authenticity is left out." :
            "Mailbox '\(label)' trusts \(trusted.joined(separator: ", ")). A running `serve` applies it within 30 seconds.")
        return .success
    }),
    .init(CommandSpec("mailbox providers", summary: "List the provider presets `mailbox add --provider` knows.", options: [])) { _ in
        for name in ProviderPreset.names {
            let p = ProviderPreset.all[name]!
            let login = p.authentication == .oauth2 ? "OAuth 2" : "password: \(p.passwordNote ?? "the account password")"
            say("\(name): \(p.name), \(p.host):\(p.port) \(p.security.rawValue), \(login); \(p.maxConnections) connections, IDLE " +
                "renewed every \(p.idleRestart.components.seconds / 60) min; trusts " +
                "\(p.trustedAuthservIDs.isEmpty ? "no receiving server" : p.trustedAuthservIDs.joined(separator: ", "))")
        }
        return .success
    },
    .init(CommandSpec("mailbox remove", summary: "Stop watching a mailbox and delete its stored credentials.", positionals: ["LABEL"],
                      options: [dataDirOption]),
          run: { args in
        let label = args.positionals[0]
        let (store, _) = try await openStore(args)
        let removed = try await store.removeMailbox(label: label)
        await store.close()
        guard removed else { throw OutpostCommandError("no mailbox labelled '\(label)' (see `mailwake-outpost mailbox list`)") }
        say("Mailbox '\(label)' removed with its credentials. A running `serve` stops watching it within 30 seconds.")
        return .success
    }),
    .init(CommandSpec("mailbox test", summary: "Connect, log in, list folders and report the server's capabilities.",
                      positionals: ["LABEL"],
                      options: [dataDirOption])) { args in
        let label = args.positionals[0]
        let (store, _) = try await openStore(args)
        guard let record = try await store.mailbox(label: label) else {
            await store.close()
            throw OutpostCommandError("no mailbox labelled '\(label)' (see `mailwake-outpost mailbox list`)")
        }
        let secret = try await store.mailboxSecret(record.id)
        await store.close()
        let report = try await MailboxProbe.run(record, secret: secret)
        say(report.text)
        return .success
    },
]

func describe(_ state: FolderState) -> String {
    var text = state.watchState.rawValue + " since " + time(state.stateSince)
    if let uid = state.lastUID { text += ", last UID \(uid)" }
    if let error = state.lastError, state.watchState == .retrying || state.watchState == .authenticationFailed { text += ": \(error)" }
    return text
}

/// `--authserv-id` and `mailbox trust`: comma-separated ids, `*.domain` or `-`.
func parseAuthservIDs(_ text: String) throws(UsageError) -> [String] {
    let ids = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    for id in ids where id != "-" {
        let host = id.hasPrefix("*.") ? String(id.dropFirst(2)) : id
        guard !host.isEmpty, host.count <= 253, host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }),
              host.contains(".") || !id.hasPrefix("*.")
        else { throw UsageError("authserv-id '\(id)' is not a host name, *.domain or -") }
    }
    return ids
}
