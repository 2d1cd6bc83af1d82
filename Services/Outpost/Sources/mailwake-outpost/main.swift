import Foundation
import MailwakeCore
import MailwakeProtocol
import MailwakeHTTPServer
import MailwakeQRCode
import OutpostService

/// `mailwake-outpost`: the self-hosted part of Mailwake. It keeps its identity
/// and secrets in a data directory, pairs iPhones through a relay and sends
/// them end-to-end encrypted notifications.
let dataDirOption = OptionSpec("data-dir", value: "DIR",
                               help: "The data directory (default: $MAILWAKE_OUTPOST_DATA_DIR, else /var/lib/mailwake-outpost as root, " +
                                     "$XDG_DATA_HOME/mailwake-outpost otherwise).")

/// The settings (`MAILWAKE_OUTPOST_*`, `--config FILE`) of a command.
func settings(_ args: ParsedArguments) throws -> ServiceConfiguration {
    try OutpostSettings.spec.load(arguments: args)
}

/// The data directory of a command: `--data-dir`, else the setting, else the default.
func dataDirectory(_ args: ParsedArguments) -> DataDirectory {
    if let dir = args.value("data-dir") { return DataDirectory(path: dir) }
    if let configured = try? settings(args),
       !configured[OutpostSettings.dataDir].isEmpty { return DataDirectory(path: configured[OutpostSettings.dataDir]) }
    return DataDirectory(path: DataDirectory.defaultPath)
}

/// Opens the store and identity of an initialized outpost, for a command that does not talk to the relay.
func openStore(_ args: ParsedArguments) async throws -> (store: OutpostStore, identity: OutpostIdentity) {
    try await OutpostApp.openStore(dataDirectory(args))
}

/// Opens an initialized outpost with a client of its relay.
func openApp(_ args: ParsedArguments, configuration: OutpostConfiguration = .init(),
             logger: Logger = .disabled) async throws -> OutpostApp {
    try await OutpostApp.open(dataDirectory(args), configuration: configuration, logger: logger)
}

func say(_ text: String) { StandardStreams.write(text + "\n") }

/// Prints a pairing or invitation link with its QR code (in the terminal unless
/// `--no-qr`, and as a PNG with `--png FILE`).
func showLink(_ link: String, _ args: ParsedArguments) throws {
    let qr = try QRCode(link: link)
    if let png = args.value("png") { try qr.writePNG(to: png); say("QR code written to \(png)") }
    if !args.flag("no-qr") { say(qr.terminalText); say("") }
    say(link)
    say("")
}

func time(_ unix: Int64) -> String {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return f.string(from: Date(timeIntervalSince1970: TimeInterval(unix)))
}

let tool = CommandLineTool(
    name: "mailwake-outpost",
    summary: "Mailwake outpost: watches your mailboxes and sends end-to-end encrypted notifications to your paired iPhones.",
    version: MailwakeVersion.current,
    commands: [
        .init(CommandSpec("init", summary: "Create the data directory: secret.key, the database and the outpost identity.",
                          options: [dataDirOption])) { args in
            let dir = dataDirectory(args)
            let (store, identity) = try await OutpostStore.initialize(dir)
            await store.close()
            say("Initialized an outpost in \(dir.path)")
            say("  outpost id:   \(identity.id)")
            say("  fingerprint:  \(identity.fingerprint)")
            say("secret.key is the key to everything in this directory: keep a backup (`mailwake-outpost backup`).")
            return .success
        },
        .init(CommandSpec("relay set", summary: "Choose the relay this outpost pairs and delivers through.", options: [
            dataDirOption,
            OptionSpec("url", value: "URL", required: true, help: "The relay's HTTPS origin, e.g. https://push.mailwake.net"),
            OptionSpec("env", value: "ENV", required: true, help: "The APNs environment of the App: production or sandbox"),
            OptionSpec("ca-file", value: "FILE", help: "A PEM CA bundle trusted alone for this relay (a private relay)"),
            OptionSpec("origin", value: "ORIGIN", help: "The relay's public origin when it differs from --url (reached through a tunnel)"),
        ])) { args in
            let url = try args.required("url")
            guard let parsed = try? ConfigURL.parse(url, schemes: ["https", "http"], originOnly: true),
                  parsed.scheme == "https" || ["127.0.0.1", "::1", "localhost"].contains(parsed.host)
            else { throw UsageError("--url must be an https origin (http only on loopback)") }
            guard let environment = PushEnvironment(rawValue: try args.required("env")) else { throw UsageError("--env must be " +
                "production or sandbox") }
            if let ca = args.value("ca-file"),
               !FileManager.default.fileExists(atPath: ca) { throw UsageError("--ca-file \(ca) does not exist") }
            let (store, _) = try await openStore(args)
            try await store.setRelay(RelaySettingsRecord(url: parsed.origin, origin: args.value("origin"), environment: environment,
                                                         caFile: args.value("ca-file")))
            await store.close()
            say("Relay set: \(parsed.origin) (\(environment.rawValue))")
            return .success
        },
        .init(CommandSpec("relay show", summary: "Print the relay settings.", options: [dataDirOption])) { args in
            let (store, _) = try await openStore(args)
            let relay = try await store.relay()
            await store.close()
            say("url:          \(relay.url)")
            if relay.origin != relay.url { say("origin:       \(relay.origin)") }
            say("environment:  \(relay.environment.rawValue)")
            say("ca file:      \(relay.caFile ?? "(system trust store)")")
            return .success
        },
        .init(CommandSpec("pair", summary: "Pair an iPhone: show a link and QR code, wait for the App's consent, verify and confirm it.",
                          options: [
            dataDirOption,
            OptionSpec("png", value: "FILE", help: "Also write the QR code to FILE (PNG, mode 0600)"),
            OptionSpec("no-qr", help: "Print the link only"),
            OptionSpec("yes", help: "Confirm the device without asking (scripts); the fingerprint is still shown"),
        ])) { args in
            let app = try await openApp(args)
            defer { app.client.shutdown() }
            let (pairing, identity) = (app.pairing, app.identity)
            let ask = !args.flag("yes") && isatty(STDIN_FILENO) == 1
            let offer = try await pairing.offer()
            say("Pair an iPhone with this outpost")
            say("  outpost fingerprint: \(identity.fingerprint)")
            say("  valid until \(time(offer.link.expiresAt)) (5 minutes); the App shows the same fingerprint")
            say("")
            try showLink(offer.link.link, args)
            say("Waiting for the App's consent…")
            let device = try await pairing.complete(offer, approval: .owner({ consent in
                say("A device consented: \(consent.deviceID)")
                say("  device fingerprint: \(KeyIdentity.fingerprint(of: consent.deviceSigningKey))")
                say("  compare it with the fingerprint the App shows under Settings › This iPhone")
                guard ask else { return true }
                return await confirmOnTerminal("Confirm this device? [y/N] ")
            }))
            await app.store.close()
            say("Paired with device \(device.deviceID)")
            say("  device fingerprint: \(device.fingerprint)")
            say("  pairing id:         \(device.pairingID)")
            return .success
        },
        .init(CommandSpec("devices live-activities", summary: "Show codes as a Live Activity on a device (on), or not (off).",
                          positionals: ["PAIRING_ID", "on|off"], options: [dataDirOption])) { args in
            guard let state = ["on": PairedDevice.LiveActivities.on,
                               "off": .off][args.positionals[1]] else { throw UsageError("say on or off") }
            let (store, _) = try await openStore(args)
            let changed = try await store.setLiveActivities(args.positionals[0], state)
            await store.close()
            guard changed else { throw OutpostCommandError("no pairing \(args.positionals[0]) (see `mailwake-outpost devices list`)") }
            say("Live Activities \(state.rawValue) for \(args.positionals[0]).")
            return .success
        },
        .init(CommandSpec("devices unpair", summary: "End a pairing at the relay; delivery stops, the record stays as history.",
                          positionals: ["PAIRING_ID"],
                          options: [dataDirOption])) { args in
            let app = try await openApp(args)
            defer { app.client.shutdown() }
            let (store, id) = (app.store, args.positionals[0])
            guard try await store.pairings(activeOnly: true).contains(where: { $0.pairingID == id || $0.deviceID == id }) else {
                throw UsageError("no active pairing or device \(id) (see `devices list`)")
            }
            let pairings = try await store.pairings(activeOnly: true).filter { $0.pairingID == id || $0.deviceID == id }
            for p in pairings { try await app.pairing.unpair(p.pairingID) }
            await store.close()
            say("Unpaired \(pairings.count) pairing(s).")
            return .success
        },
        .init(CommandSpec("notify", summary: "Send a notification to every paired device.", options: [
            dataDirOption, OptionSpec("test", required: true, help: "A test notification (mail watching sends the real ones)"),
        ])) { args in
            let app = try await openApp(args, configuration: try OutpostConfiguration(settings(args)))
            defer { app.client.shutdown() }
            let store = app.store
            let now = WallClock.seconds()
            let content = NotificationContent(mailbox: "test", folder: "INBOX",
                                              from: .init(name: "Mailwake outpost", address: "outpost@localhost"),
                                              subject: "Test notification from your outpost", receivedAt: UInt64(now))
            guard let historyID = try await app.notifier().notify(content) else {
                say("No paired devices: nothing to send. Run `mailwake-outpost pair`.")
                return .failure
            }
            let pass = app.deliveryPass()
            let started = ContinuousClock.now
            var records = try await store.deliveries(historyID: historyID)
            while records.contains(where: { $0.status == .pending || $0.status == .queued }),
                  ContinuousClock.now - started < .seconds(30) {
                try await pass.run()
                records = try await store.deliveries(historyID: historyID)
                if records.contains(where: { $0.status == .pending
                    || $0.status == .queued }) { try await Task.sleep(for: .milliseconds(200)) }
            }
            await store.close()
            for r in records { say("\(r.pairingID)  \(r.status.rawValue)\(r.lastError.map { "  (\($0))" } ?? "")") }
            let unfinished = records.filter { $0.status == .pending || $0.status == .queued }.count
            if unfinished > 0 { say("\(unfinished) still on their way; `mailwake-outpost serve` keeps trying.") }
            return records.contains { $0.status == .failed || $0.status == .expired } ? .failure : .success
        },
        .init(CommandSpec("serve", summary: "Run the outpost: watch the mailboxes and deliver notifications.", options: [
            dataDirOption, ConfigurationSpec.configOption,
        ], discussion: OutpostSettings.spec.helpText())) { args in
            let loaded = try settings(args)
            let configuration = try OutpostConfiguration(loaded)
            let logger = Logger(service: "outpost", level: configuration.logLevel)
            for warning in loaded.warnings { logger.warning(warning) }
            let app = try await openApp(args, configuration: configuration, logger: logger)
            let code = try await app.serve()
            await app.close()
            return code
        },
        .init(CommandSpec("status",
                          summary: "Print the identity, the relay's reachability, pairings, deliveries waiting and each folder's watch " +
                                   "coverage.", options: [dataDirOption])) { args in
            let (store, identity) = try await openStore(args)
            say("outpost id:        \(identity.id)")
            say("fingerprint:       \(identity.fingerprint)")
            if let relay = try? await store.relay() {
                let client = try OutpostRelayClient(relay: relay, identity: identity)
                let probe = try? await client.signed(.get, "/v1/envelopes/AAAAAAAAAAAAAAAAAAAAAA/00000000-0000-7000-8000-000000000000",
                                                     timeout: .seconds(5))
                client.shutdown()
                say("relay:             \(relay.url) (\(relay.environment.rawValue)): \(probe == nil ? "unreachable" : "reachable")")
            } else {
                say("relay:             not set (`mailwake-outpost relay set`)")
            }
            let pairings = try await store.pairings()
            say("paired devices:    \(pairings.filter(\.active).count) active, \(pairings.filter { !$0.active }.count) unpaired")
            say("waiting for relay: \(try await store.pendingCount()) deliveries")
            let receipts = try await store.receiptSummary(since: WallClock.seconds() - 86400)
            say("shown (24 h):      \(receipts.displayed) of \(receipts.sent) sent deliveries displayed, \(receipts.awaiting) awaiting " +
                "a receipt"
                + (receipts.medianSentToDisplayed.map { ", median APNs sent → displayed \($0) s" } ?? ""))
            let channels = try await store.channels()
            let channelList = channels.map { "\($0.name) (\($0.kind.rawValue)\($0.enabled ? "" : ", disabled"))" }.joined(separator: ", ")
            say("channels:          \(channels.isEmpty ? "none" : channelList)")
            let mailboxes = try await store.mailboxes()
            let states = try await store.folderStates()
            say("mailboxes:         \(mailboxes.isEmpty ? "none (`mailwake-outpost mailbox add`)" : String(mailboxes.count))")
            for m in mailboxes {
                for folder in m.folders {
                    let s = states.first { $0.mailboxID == m.id && $0.folder == folder }
                    say("    \(m.label)/\(folder): \(s.map(describe) ?? "not watched yet")")
                    let gaps = try await store.watchGaps(mailboxID: m.id, folder: folder)
                    for line in WatchCoverageReport.lines(state: s, gaps: gaps, now: WallClock.seconds(), time: time) {
                        say("        \(line)")
                    }
                }
            }
            await store.close()
            return .success
        },
        .init(CommandSpec("history", summary: "What was notified, with each device's delivery status.", options: [
            dataDirOption, OptionSpec("days", value: "N", help: "How many days back (default 7)"),
        ])) { args in
            let days = Int(try args.int64("days") ?? 7)
            let (store, _) = try await openStore(args)
            let entries = try await store.history(days: days)
            let channels = Dictionary(uniqueKeysWithValues: try await store.channels().map { ($0.id, $0.name) })
            var channelDeliveries: [Int64: [ChannelDeliveryRecord]] = [:]
            for e in entries { channelDeliveries[e.id] = try await store.channelDeliveries(historyID: e.id) }
            await store.close()
            if entries.isEmpty { say("Nothing notified in the last \(days) days.") }
            for e in entries {
                say("\(time(e.createdAt))  \(e.mailbox)/\(e.folder)  \(e.sender)  \(e.subjectSummary)")
                for d in e.devices {
                    let waiting = d.awaitingReceipt ? ", no receipt yet" : ""
                    say("    \(d.deviceID.prefix(16))…  \(d.status)\(waiting)\(d.detail.map { " (\($0))" } ?? "")")
                    say("      \(HistoryChain.describe(e, d, time: time))")
                }
                for c in channelDeliveries[e.id] ?? [] {
                    say("    channel \(channels[c.channelID] ?? "(removed)")  \(c.status.rawValue)\(c.lastError.map { " (\($0))" } ?? "")")
                }
            }
            return .success
        },
        .init(CommandSpec("backup", summary: "Write one archive with a consistent database snapshot and secret.key (mode 0600).",
                          options: [
            dataDirOption, OptionSpec("out", value: "FILE", required: true, help: "The archive to write (refuses to replace a file)"),
            OptionSpec("encrypt", help: "Encrypt it (scrypt and AES-256-GCM) with a passphrase read from standard input (recommended)"),
        ])) { args in
            let out = try args.required("out")
            let passphrase = args.flag("encrypt") ? try await BackupPassphrase.read(confirm: true) : nil
            let (store, identity) = try await openStore(args)
            let size = try await OutpostBackup.write(store, to: out, passphrase: passphrase)
            await store.close()
            say("Backed up outpost \(identity.id) to \(out) (\(size) bytes\(passphrase == nil ? "" : ", encrypted")).")
            if passphrase == nil {
                say("WARNING: this file holds the outpost's keys. Anyone who has it can act as this outpost: keep it as safe as the " +
                    "server itself, or use --encrypt.")
            } else {
                say("Keep the passphrase apart from the file: without it the backup cannot be restored.")
            }
            return .success
        },
        .init(CommandSpec("restore",
                          summary: "Restore a backup into an empty data directory (an encrypted one asks for its passphrase on standard " +
                                   "input).", options: [
            dataDirOption, OptionSpec("from", value: "FILE", required: true, help: "The archive `backup` wrote"),
        ])) { args in
            let dir = dataDirectory(args)
            let from = try args.required("from")
            let passphrase = try OutpostBackup.isEncrypted(at: from) ? try await BackupPassphrase.read(confirm: false) : nil
            let identity = try await OutpostBackup.restore(from: from, into: dir, passphrase: passphrase)
            say("Restored outpost \(identity.id) (\(identity.fingerprint)) into \(dir.path).")
            return .success
        },
        .init(CommandSpec("inspect",
                          summary: "Print, as JSON, the notification the outpost would build from a raw message (.eml): sender, " +
                                   "subject, date, code and why; with --body, what the body endpoint would answer.",
                          positionals: ["FILE"],
                          options: [OptionSpec("body",
                                               help: "Print the body document instead: headers, sanitized HTML, text, inline and " +
                                                     "remote images")])) { args in
            guard let data = FileManager.default.contents(atPath: args.positionals[0]) else { throw UsageError("cannot read " +
                "\(args.positionals[0])") }
            if args.flag("body") {
                say(try MessageInspection.bodyJSON(for: Array(data)))
            } else {
                say(try MessageInspection.json(for: Array(data)))
            }
            return .success
        },
        OutpostSettings.spec.settingsCommand(),
        .init(CommandSpec("history clear", summary: "Delete the history (finished deliveries with it).", options: [
            dataDirOption, OptionSpec("older-than-days", value: "N", help: "Keep the last N days (default: delete everything)"),
        ])) { args in
            let (store, _) = try await openStore(args)
            let n = try await store.clearHistory(olderThanDays: Int(try args.int64("older-than-days") ?? 0))
            await store.close()
            say("Deleted \(n) history entries.")
            return .success
        },
    ] + mailboxCommands + ruleCommands + channelCommands + deviceCommands)
await tool.main()
