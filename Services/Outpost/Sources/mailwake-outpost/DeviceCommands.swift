import Foundation
import MailwakeCore
import MailwakeProtocol
import OutpostService

/// The mailbox ids of `--mailboxes LABEL,LABEL` (nil when absent: every mailbox).
private func mailboxIDs(_ args: ParsedArguments, _ store: OutpostStore) async throws -> [Int64]? {
    guard let list = args.value("mailboxes") else { return nil }
    let mailboxes = try await store.mailboxes()
    return try list.split(separator: ",").map { label in
        guard let m = mailboxes.first(where: { $0.label == String(label) }) else {
            throw OutpostCommandError("no mailbox labelled '\(label)' (see `mailwake-outpost mailbox list`)")
        }
        return m.id
    }
}

private func parseScope(_ s: String) throws -> ManagementScope {
    guard let scope = ManagementScope(rawValue: s) else { throw UsageError("a scope is manage, content or push") }
    return scope
}

private let mailboxesOption = OptionSpec("mailboxes", value: "LABELS",
                                         help: "Limit content to these mailboxes (comma-separated labels; default all)")

/// `mailwake-outpost invite`, `devices list|grant|revoke`, `changes`.
let deviceCommands: [CommandLineTool.Command] = [
    .init(CommandSpec("invite",
                      summary: "Invite the App to manage this outpost, read message bodies and/or receive pushes: shows a one-time link " +
                               "and QR code (5 minutes).", options: [
        dataDirOption, ConfigurationSpec.configOption,
        OptionSpec("scope", value: "SCOPES", required: true, help: "What to offer: a comma list of manage, content, push"),
        mailboxesOption,
        OptionSpec("png", value: "FILE", help: "Also write the QR code to FILE (PNG, mode 0600)"),
        OptionSpec("no-qr", help: "Print the link only"),
    ])) { args in
        let scopes = Set(try args.required("scope").split(separator: ",").map { try parseScope(String($0)) }).sorted()
        let configuration = try OutpostConfiguration(settings(args))
        let origin = try OutpostTLS.origin(configuration.api)
        let tls = try OutpostTLS.resolve(directory: dataDirectory(args), api: configuration.api, origin: origin)
        let (store, identity) = try await openStore(args)
        let app = try await scopes.contains(.push) ? OutpostApp.connect(dataDirectory(args), store: store, identity: identity) : nil
        defer { app?.client.shutdown() }
        let limit = try await mailboxIDs(args, store)
        let pairing = app?.pairing
        let invitations = OutpostInvitations(store: store, identity: identity)
        let offer = try await invitations.create(scopes: scopes, mailboxIDs: limit, origin: origin, pin: tls.pin, pairing: pairing)
        say("Invite the App to this outpost (\(scopes.map(\.rawValue).joined(separator: ", ")))")
        say("  outpost fingerprint: \(identity.fingerprint)")
        say("  outpost address:     \(origin)\(tls.selfSigned ? " (self-signed certificate, pinned by the link)" : "")")
        say("  valid until \(time(offer.link.expiresAt)) (5 minutes), once")
        say("")
        try showLink(offer.link.link, args)
        say("Waiting for the App (the outpost's `serve` must be running to answer it)…")
        async let pushed = completePush(offer, through: pairing)
        let redeemed = try await invitations.waitForRedemption(offer)
        let device = try await pushed
        await store.close()
        if let redeemed {
            say("Redeemed by device \(redeemed.redeemedBy ?? "?")")
        } else if offer.link.scopes.contains(where: { $0 != .push }) {
            say("The invitation expired unused.")
        }
        if let device { say("Paired for push: device \(device.deviceID), fingerprint \(device.fingerprint)") }
        return redeemed != nil || device != nil ? .success : .failure
    },
    .init(CommandSpec("devices list", summary: "List the devices this outpost knows, with their permissions and pairings.",
                      options: [dataDirOption])) { args in
        let (store, _) = try await openStore(args)
        let devices = try await store.knownDevices()
        let pairings = try await store.pairings()
        let mailboxes = Dictionary(uniqueKeysWithValues: try await store.mailboxes().map { ($0.id, $0.label) })
        await store.close()
        if devices.isEmpty { say("No devices. Run `mailwake-outpost pair` or `mailwake-outpost invite`."); return .success }
        for d in devices {
            let scopes = d.scopes.map { scope -> String in
                guard scope == .content, let ids = d.permission(.content)?.mailboxIDs else { return scope.rawValue }
                return "content (\(ids.map { mailboxes[$0] ?? "#\($0)" }.joined(separator: ", ")))"
            }
            say("device \(d.deviceID)  \(d.fingerprint)  since \(time(d.addedAt))  permissions: " +
                "\(scopes.isEmpty ? "none" : scopes.joined(separator: ", "))")
            for p in pairings where p.deviceID == d.deviceID {
                let state = p.active ? "active, Live Activities \(p.liveActivities.rawValue)" : "unpaired \(p.unpairedAt.map(time) ?? "")"
                say("    pairing \(p.pairingID)  paired \(time(p.pairedAt))  \(state)")
            }
        }
        return .success
    },
    .init(CommandSpec("devices grant", summary: "Grant a known device the manage or content permission (push is granted by pairing).",
                      positionals: ["DEVICE_ID", "SCOPE"], options: [dataDirOption, mailboxesOption])) { args in
        let scope = try parseScope(args.positionals[1])
        let (store, _) = try await openStore(args)
        let limit = try await mailboxIDs(args, store)
        do {
            try await store.grant(scope, to: args.positionals[0], mailboxIDs: scope == .content ? limit : nil, by: "cli")
        } catch let error as OutpostError {
            await store.close()
            throw OutpostCommandError(error.message)
        }
        await store.close()
        say("Granted \(scope.rawValue) to \(args.positionals[0]).")
        return .success
    },
    .init(CommandSpec("devices revoke",
                      summary: "Revoke a device's manage, content or push permission; it takes effect on the device's next request.",
                      positionals: ["DEVICE_ID", "SCOPE"], options: [dataDirOption])) { args in
        let scope = try parseScope(args.positionals[1])
        let id = args.positionals[0]
        let (store, identity) = try await openStore(args)
        let app = try await scope == .push ? OutpostApp.connect(dataDirectory(args), store: store, identity: identity) : nil
        defer { app?.client.shutdown() }
        if let app {
            let pairings = try await store.pairings(activeOnly: true).filter { $0.deviceID == id }
            guard !pairings.isEmpty else { await store.close(); throw OutpostCommandError("device \(id) has no active pairing") }
            for p in pairings { try await app.pairing.unpair(p.pairingID) }
            try await store.logChange(actor: "cli", action: "revoke", detail: "push from \(id)")
        } else {
            guard try await store.revoke(scope, from: id, by: "cli") else {
                await store.close()
                throw OutpostCommandError("device \(id) does not hold \(scope.rawValue)")
            }
        }
        await store.close()
        say("Revoked \(scope.rawValue) from \(id).")
        return .success
    },
    .init(CommandSpec("changes", summary: "The administrator log: every change to devices, permissions and settings, and who made it.",
                      options: [
        dataDirOption, OptionSpec("limit", value: "N", help: "How many, newest first (default 50)"),
    ])) { args in
        let (store, _) = try await openStore(args)
        let entries = try await store.adminLog(limit: Int(try args.int64("limit") ?? 50))
        await store.close()
        if entries.isEmpty { say("No changes recorded."); return .success }
        for e in entries { say("\(time(e.at))  \(e.actor)  \(e.action)  \(e.detail)") }
        return .success
    },
]

/// Waits for the push pairing `offer` carries to be completed by the App that redeems it (nil: the offer has none).
func completePush(_ offer: OutpostInvitations.Offer, through pairing: OutpostPairing?) async throws -> PairedDevice? {
    guard let pairing, let pending = offer.pairing else { return nil }
    return try await pairing.complete(pending, approval: .redeemer(invitationTokenHash: offer.tokenHash))
}
