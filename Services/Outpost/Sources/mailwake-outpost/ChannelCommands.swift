import Foundation
import MailwakeCore
import MailwakeProtocol
import OutpostService

private let commonOptions = [
    dataDirOption,
    OptionSpec("name", value: "N", required: true, help: "A name for the channel"),
    OptionSpec("allow-private", help: "Allow a loopback, private or link-local address (a server on your LAN); refused otherwise"),
    OptionSpec("ca-file", value: "FILE", help: "A PEM CA bundle trusted for this channel instead of the system's"),
]

private let linkOption = OptionSpec("link", value: "URL", help: "A link the notification opens (e.g. your webmail)")

/// A new channel of `kind` named by `--name`, at `--<urlOption>` or `defaultURL`.
private func newRecord(_ args: ParsedArguments, _ kind: ChannelRecord.Kind, urlOption: String,
                       defaultURL: String?) throws -> ChannelRecord {
    let url = try args.value(urlOption) ?? defaultURL ?? args.required(urlOption)
    var record = ChannelRecord(name: try args.required("name"), kind: kind,
                               url: try checkedURL(url, allowPrivate: args.flag("allow-private")))
    if let link = args.value("link") { record.options.link = try checkedURL(link, allowPrivate: true) }
    return record
}

/// Reads one line of standard input.
private func secretLine(_ what: String) throws -> String {
    guard let line = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !line.isEmpty else {
        throw UsageError("expected \(what) on standard input")
    }
    return line
}

/// Checks a channel URL: https, or http with --allow-private (a LAN server).
private func checkedURL(_ text: String, allowPrivate: Bool) throws -> String {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host != nil, ["https", "http"].contains(scheme) else {
        throw UsageError("\(text) is not an http(s) URL")
    }
    if scheme == "http",
       !allowPrivate { throw UsageError("\(text): plain http only together with --allow-private (a server on your own network)") }
    return text
}

private func addChannel(_ args: ParsedArguments, _ record: ChannelRecord, _ secrets: ChannelSecrets) async throws {
    var record = record
    record.allowPrivate = args.flag("allow-private")
    if let ca = args.value("ca-file") {
        guard FileManager.default.isReadableFile(atPath: ca) else { throw UsageError("--ca-file \(ca) cannot be read") }
        record.options.caFile = URL(fileURLWithPath: ca).standardizedFileURL.path
    }
    let (store, _) = try await openStore(args)
    try await store.addChannel(record, secrets: secrets)
    await store.close()
    say("Channel '\(record.name)' (\(record.kind.rawValue)) added. `mailwake-outpost channel test \(record.name)` sends a test " +
        "notification.")
}

/// `mailwake-outpost channel add bark|pushover|webhook`, `list`, `remove`, `test`.
let channelCommands: [CommandLineTool.Command] = [
    .init(CommandSpec("channel add bark", summary: "Send notifications to the Bark app (api.day.app or your own bark-server).",
                      options: commonOptions + [
        OptionSpec("server", value: "URL", help: "The Bark server (default https://api.day.app)"),
        OptionSpec("device-key", value: "KEY", required: true, help: "The device key the Bark app shows"),
        OptionSpec("encryption", value: "MODE",
                   help: "gcm or cbc: the Bark app's push encryption (AES-256); the 32-character key is read from standard input"),
        OptionSpec("group", value: "G", help: "Notification group (default: the mailbox label)"),
        OptionSpec("level", value: "L",
                   help: "active, timeSensitive, passive or critical (default: timeSensitive with a code, else active)"),
        linkOption,
    ])) { args in
        var record = try newRecord(args, .bark, urlOption: "server", defaultURL: "https://api.day.app")
        var secrets = ChannelSecrets()
        secrets.deviceKey = try args.required("device-key")
        if let mode = args.value("encryption") {
            guard mode == "gcm" || mode == "cbc" else { throw UsageError("--encryption must be gcm or cbc") }
            let key = try secretLine("the Bark encryption key")
            guard key.utf8.count == 32 else { throw UsageError("the Bark encryption key must be 32 characters (AES-256)") }
            secrets.encryptionKey = key
            record.options.encryption = mode
        }
        if let level = args.value("level") {
            guard ["active", "timeSensitive", "passive",
                   "critical"].contains(level) else { throw UsageError("--level must be active, timeSensitive, passive or critical") }
            record.options.level = level
        }
        record.options.group = args.value("group")
        try await addChannel(args, record, secrets)
        return .success
    },
    .init(CommandSpec("channel add pushover",
                      summary: "Send notifications with Pushover; the application token is read from standard input.",
                      options: commonOptions + [
        OptionSpec("user", value: "KEY", required: true, help: "Your Pushover user (or group) key"),
        OptionSpec("priority", value: "P", help: "-2 to 2 (default 0)"),
        linkOption,
        OptionSpec("api", value: "URL", help: "The API base (default https://api.pushover.net)"),
    ])) { args in
        var record = try newRecord(args, .pushover, urlOption: "api", defaultURL: "https://api.pushover.net")
        if let p = try args.int64("priority") {
            guard (-2...2).contains(p) else { throw UsageError("--priority must be -2 to 2") }
            record.options.priority = Int(p)
        }
        var secrets = ChannelSecrets()
        secrets.userKey = try args.required("user")
        secrets.appToken = try secretLine("the Pushover application token")
        try await addChannel(args, record, secrets)
        return .success
    },
    .init(CommandSpec("channel add webhook", summary: "POST each notification to a URL, signed the Standard Webhooks way.",
                      options: commonOptions + [
        OptionSpec("url", value: "URL", required: true, help: "The endpoint"),
        OptionSpec("secret-stdin",
                   help: "Read the whsec_ signing secret from standard input (default: a new one is made and printed once)"),
    ])) { args in
        let record = try newRecord(args, .webhook, urlOption: "url", defaultURL: nil)
        var secrets = ChannelSecrets()
        let generated = !args.flag("secret-stdin")
        let secret = generated ? try ChannelRequest.newWebhookSecret() : try secretLine("the whsec_ secret")
        guard ChannelRequest.webhookKey(secret) != nil else { throw UsageError("the secret must be whsec_ followed by base64 of " +
                                                                               "16–64 bytes") }
        secrets.webhookSecret = secret
        try await addChannel(args, record, secrets)
        if generated { say("Signing secret (shown once; give it to the receiver): \(secret)") }
        return .success
    },
    .init(CommandSpec("channel list", summary: "List the channels.", options: [dataDirOption])) { args in
        let (store, _) = try await openStore(args)
        let channels = try await store.channels()
        await store.close()
        if channels.isEmpty { say("No channels. Add one with `mailwake-outpost channel add bark|pushover|webhook`.") }
        for c in channels {
            var line = "\(c.name)  \(c.kind.rawValue)  \(c.url)"
            if c.options.encryption != nil { line += "  (encrypted: AES-256-\(c.options.encryption!.uppercased()))" }
            if c.allowPrivate { line += "  (private addresses allowed)" }
            if !c.enabled { line += "  DISABLED\(c.disabledReason.map { ": \($0)" } ?? "")" }
            say(line)
        }
        return .success
    },
    .init(CommandSpec("channel remove", summary: "Remove a channel and its stored secrets.", positionals: ["NAME"],
                      options: [dataDirOption])) { args in
        let (store, _) = try await openStore(args)
        let removed = try await store.removeChannel(name: args.positionals[0])
        await store.close()
        guard removed else { throw OutpostCommandError("no channel named '\(args.positionals[0])' (see `mailwake-outpost channel list`)") }
        say("Channel '\(args.positionals[0])' removed.")
        return .success
    },
    .init(CommandSpec("channel test", summary: "Send a test notification through one channel now and print the outcome.",
                      positionals: ["NAME"],
                      options: [dataDirOption])) { args in
        let (store, _) = try await openStore(args)
        guard let channel = try await store.channel(name: args.positionals[0]) else {
            await store.close()
            throw OutpostCommandError("no channel named '\(args.positionals[0])' (see `mailwake-outpost channel list`)")
        }
        let secrets = try await store.channelSecrets(channel.id)
        await store.close()
        let now = WallClock.seconds()
        let content = NotificationContent(mailbox: "test", folder: "INBOX",
                                          from: .init(name: "Mailwake outpost", address: "outpost@localhost"),
                                          subject: "Test notification from your outpost", receivedAt: UInt64(now), code: "123456")
        let sender = ChannelSender()
        defer { sender.shutdown() }
        let outcome = await sender.send(content, eventID: try EventID.generate(), channel: channel, secrets: secrets, now: now)
        switch outcome {
        case .sent:
            say("sent")
            return .success
        case .retry(_, let reason), .failed(let reason), .disable(let reason):
            say("not sent: \(reason)")
            return .failure
        }
    },
]
