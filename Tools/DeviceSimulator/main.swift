import Foundation
import MailwakeAppStore
import MailwakeCore
import MailwakeCrypto
import MailwakeDeviceKit
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakeProtocol

/// `mailwake-device`: plays an iPhone running the Mailwake App, built on the
/// protocol module: keys, registration at accounts, purchases, pairing by
/// link, and an inbox that opens what the APNs simulator received for it.
let dirOption = OptionSpec("dir", value: "DIR", required: true, help: "Where the simulated device keeps its keys and state")
let caOption = OptionSpec("ca-file", value: "FILE", help: "A PEM CA bundle trusted alone for the service called")
let accountsOption = OptionSpec("accounts", value: "URL", required: true, help: "Where accounts answers")
let accountsOriginOption = OptionSpec("origin", value: "ORIGIN", help: "Accounts' public origin, when it differs from --accounts")

func client(_ args: ParsedArguments, http2: Bool = false) throws -> HTTPClient {
    var c = HTTPClient.Configuration()
    c.name = "device"
    c.caFile = args.value("ca-file")
    c.httpVersion = http2 ? .http2 : .http1_1
    c.maxResponseBytes = 64 << 20
    return try HTTPClient(configuration: c)
}

/// A request signed by the device (PROTOCOL.md §8) for `origin`, sent to `base`.
func signed(_ http: HTTPClient, _ state: DeviceState, _ method: HTTPMethod, base: String, origin: String, path: String, body: [UInt8]?,
            session: String? = nil) async throws -> HTTPClient.Response {
    try await SignedHTTPClient(http: http, origin: origin, key: try state.signing, baseURL: base)
        .send(method, path, body: body, headers: session.map { ["Mailwake-Session": $0] } ?? [:])
}

func say(_ text: String) { StandardStreams.write(text + "\n") }

/// Posts the device's consent to a push pairing at the relay (`--relay-url`,
/// `--ca-file`) and remembers the pairing.
func consentToPairing(_ link: PairingLink, _ state: inout DeviceState, _ args: ParsedArguments) async throws {
    // PROTOCOL.md §9: the relay gets relay_token, never the credential; the consent carries the MAC only the outpost can check.
    let consent = try ConsentSubmission.create(for: link, signingKey: try state.signing, agreementKey: try state.agreement.publicKey)
    let http = try client(args)
    defer { http.shutdown() }
    let r = try await http.execute(.init(method: .post,
                                         url: (args.value("relay-url") ?? link.relay) + "/v1/pairings/\(link.pairingID)/consent",
                                         headers: ["Content-Type": "application/json"], body: consent.jsonBytes))
    if r.status == .conflict {
        throw DeviceError("""
                          this pairing code was already used by another device: ask for a new code on the outpost (`mailwake-outpost \
                          pair`) and scan it again
                          """)
    }
    guard r.status == .accepted else { throw DeviceError("the relay refused the consent (\(r.status.code)): \(r.text)") }
    state.pairings.append(.init(pairingID: link.pairingID, outpostKey: Base64URL.encode(link.outpostKey), relay: link.relay))
}

/// A signed POST to accounts (`--accounts`, `--origin`, `--ca-file`) in the device's session; throws unless it answers 2xx.
func postToAccounts(_ args: ParsedArguments, _ state: DeviceState, path: String, body: [UInt8]) async throws -> HTTPClient.Response {
    let base = try args.required("accounts")
    let http = try client(args)
    defer { http.shutdown() }
    let r = try await signed(http, state, .post, base: base, origin: args.value("origin") ?? base, path: path, body: body,
                             session: state.accountsSession)
    guard (200..<300).contains(Int(r.status.code)) else { throw DeviceError("accounts answered \(r.status.code): \(r.text)") }
    return r
}

let tool = CommandLineTool(
    name: "mailwake-device",
    summary: "A simulated iPhone for tests, the local stack and operators: keys, registration, purchases, pairing and an inbox.",
    version: MailwakeVersion.current,
    commands: [
        .init(CommandSpec("init", summary: "Create the device's keys and APNs tokens.", options: [
            dirOption, OptionSpec("env", value: "ENV", help: "APNs environment: sandbox (default) or production"),
        ])) { args in
            let dir = try args.required("dir")
            guard !FileManager.default.fileExists(atPath: DeviceState.path(dir)) else { throw DeviceError("""
                \(dir) already holds \
                a device
                """) }
            let state = try DeviceState.create(environment: args.value("env") ?? "sandbox")
            try state.save(dir)
            say("device id:   \(try state.deviceID)")
            say("fingerprint: \(KeyIdentity.fingerprint(of: try state.signing.publicKey.x963Representation))")
            say("apns token:  \(state.apnsToken)")
            return .success
        },
        .init(CommandSpec("register", summary: "Register at accounts (proof of possession of the signing key).", options: [
            dirOption, caOption,
            accountsOption, accountsOriginOption,
        ])) { args in
            let dir = try args.required("dir")
            var state = try DeviceState.load(dir)
            let body = Array((#"{"signing_key":"\#(Base64URL.encode(try state.signing.publicKey.x963Representation))","# +
                              #""agreement_key":"\#(Base64URL.encode(try state.agreement.publicKey.x963Representation))","# +
                              #""apns_token":"\#(state.apnsToken)","apns_environment":"\#(state.environment)","# +
                              #""push_to_start_token":"\#(state.pushToStartToken)","bundle_id":"net.mailwake.app","# +
                              #""app_version":"simulator"}"#).utf8)
            let r = try await postToAccounts(args, state, path: "/v1/devices", body: body)
            state.accountsSession = (try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])?["session_id"] as? String
            try state.save(dir)
            say("registered \(try state.deviceID) at \(try args.required("accounts"))")
            return .success
        },
        .init(CommandSpec("app-account-token",
                          summary: "Print the appAccountToken the App sets on its StoreKit purchases (docs/app-store.md).", options: [
            dirOption,
        ])) { args in
            let state = try DeviceState.load(try args.required("dir"))
            say(AppAccountToken.of(deviceID: try state.deviceID).uuidString.lowercased())
            return .success
        },
        .init(CommandSpec("purchase", summary: "Send a StoreKit signed transaction to accounts.", options: [
            dirOption, caOption,
            accountsOption, accountsOriginOption,
            OptionSpec("transaction", value: "JWS", required: true, help: "The signed transaction (JWS) StoreKit gave the App"),
        ])) { args in
            let state = try DeviceState.load(try args.required("dir"))
            let body = Array(#"{"signed_transaction":"\#(try args.required("transaction"))"}"#.utf8)
            let r = try await postToAccounts(args, state, path: "/v1/purchases", body: body)
            say(r.text)
            return .success
        },
        .init(CommandSpec("pair", summary: "Pair with an outpost by its link: show its fingerprint, post the consent.",
                          positionals: ["LINK"], options: [
            dirOption, caOption,
            OptionSpec("relay-url", value: "URL", help: "Where the relay answers, when it differs from the link's relay origin"),
        ])) { args in
            let dir = try args.required("dir")
            var state = try DeviceState.load(dir)
            let link = try PairingLink.parse(args.positionals[0])
            say("outpost fingerprint: \(link.outpostFingerprint)")
            say("device fingerprint:  \(KeyIdentity.fingerprint(of: try state.signing.publicKey.x963Representation))")
            try await consentToPairing(link, &state, args)
            try state.save(dir)
            say("consented to pairing \(link.pairingID); the outpost confirms it")
            return .success
        },
        .init(CommandSpec("manage",
                          summary: """
                                   Redeem an outpost's management invitation (mailwake://manage…): check its fingerprint and TLS pin, \
                                   post the signed consent; with push offered, consent to the pairing at the relay too.
                                   """,
                          positionals: ["LINK"], options: [
            dirOption, caOption,
            OptionSpec("scopes", value: "LIST", help: "Accept only these of the offered scopes (comma list; default all)"),
            OptionSpec("outpost-url", value: "URL", help: "Where the outpost answers, when it differs from the link's url"),
            OptionSpec("relay-url", value: "URL", help: "Where the relay answers, when it differs from the link's relay origin"),
        ])) { args in
            let dir = try args.required("dir")
            var state = try DeviceState.load(dir)
            let link = try ManagementLink.parse(args.positionals[0])
            say("outpost fingerprint: \(KeyIdentity.fingerprint(of: link.outpostKey))")
            let scopes = try args.value("scopes").map { list in
                try list.split(separator: ",").map { s -> ManagementScope in
                    guard let scope = ManagementScope(rawValue: String(s)) else { throw DeviceError("unknown scope \(s)") }
                    return scope
                }
            }
            let accepted = scopes ?? link.scopes
            let session = try OutpostSession(origin: link.url, pin: link.pin, signing: try state.signing,
                                             baseURL: args.value("outpost-url"))
            defer { session.shutdown() }
            let r = try await session.redeem(link, scopes: accepted, agreement: try state.agreement.publicKey)
            guard r.status == .ok else { throw DeviceError("the outpost refused the consent (\(r.status.code)): \(r.text)") }
            let outpostID = KeyIdentity.id(of: link.outpostKey)
            var outposts = (state.outposts ?? []).filter { $0.outpostID != outpostID }
            outposts.append(.init(outpostID: outpostID, outpostKey: Base64URL.encode(link.outpostKey), url: link.url,
                                  pin: Base64URL.encode(link.pin),
                                  scopes: accepted.map(\.rawValue)))
            state.outposts = outposts
            if accepted.contains(.push), let pairing = link.pairingLink {
                try await consentToPairing(pairing, &state, args)
            }
            try state.save(dir)
            say("redeemed: \(r.text)")
            return .success
        },
        .init(CommandSpec("read",
                          summary: """
                                   Read a message's body from its outpost by the ref of its notification; prints the body document \
                                   (JSON).
                                   """,
                          positionals: ["REF"], options: [
            dirOption, OptionSpec("outpost-url", value: "URL", help: "Where the outpost answers, when it differs from its origin"),
        ])) { args in
            let state = try DeviceState.load(args.required("dir"))
            let ref = args.positionals[0]
            guard let payload = ref.split(separator: ".").first.flatMap({ Base64URL.decode(String($0)) }),
                  let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any], let outpostID =
                      object["o"] as? String,
                  let outpost = state.outposts?.first(where: { $0.outpostID == outpostID })
            else { throw DeviceError("the ref names no outpost this device redeemed an invitation of (`mailwake-device manage LINK`)") }
            let session = try state.session(with: outpost, baseURL: args.value("outpost-url"))
            defer { session.shutdown() }
            let r = try await session.body(ref: ref)
            guard r.status == .ok else { throw DeviceError("the outpost answered \(r.status.code): \(r.text)") }
            say(r.text)
            return .success
        },
        .init(CommandSpec("outpost", summary: "Send a signed management request to an outpost and print the answer (e.g. GET /v1/status).",
                          positionals: ["METHOD", "PATH"], options: [
            dirOption, OptionSpec("outpost", value: "ID", help: "The outpost (default: the only one)"),
            OptionSpec("body", value: "JSON", help: "A JSON body"),
            OptionSpec("outpost-url", value: "URL", help: "Where the outpost answers, when it differs from its origin"),
        ])) { args in
            let state = try DeviceState.load(args.required("dir"))
            let known = state.outposts ?? []
            guard let outpost = args.value("outpost").map({ id in known.first { $0.outpostID == id } })
                ?? (known.count == 1 ? known.first : nil) else {
                throw DeviceError("name the outpost with --outpost (known: \(known.map(\.outpostID).joined(separator: ", ")))")
            }
            let method = HTTPMethod(rawValue: args.positionals[0].uppercased())
            guard [.get, .post, .put, .patch, .delete].contains(method) else { throw DeviceError("unknown method \(args.positionals[0])") }
            let session = try state.session(with: outpost, baseURL: args.value("outpost-url"))
            defer { session.shutdown() }
            let r = try await session.send(method, args.positionals[1], body: args.value("body").map { Array($0.utf8) })
            say("\(r.status.code) \(r.text)")
            return (200..<300).contains(Int(r.status.code)) ? .success : .failure
        },
        .init(CommandSpec("inbox",
                          summary: """
                                   Open what the APNs simulator received for this device (and, with --relay-url, what the relay's \
                                   catch-up log holds); print each new notification once as a JSON line, and relay service notices as \
                                   `notice:` lines; with --relay-url, post receipts (PROTOCOL.md §13) for what it showed or dropped as \
                                   a duplicate.
                                   """, options: [
            dirOption, caOption,
            OptionSpec("apns", value: "URL", help: "The APNs simulator's URL (its recent deliveries, in memory)"),
            OptionSpec("record", value: "FILE",
                       help: "Read the simulator's --record file instead (every delivery since it was started, across restarts)"),
            OptionSpec("relay-url", value: "URL",
                       help: "Also read the device's catch-up log at this relay (what APNs dropped while the device was offline)"),
            OptionSpec("wait", value: "SECONDS", help: "Wait up to this long for at least one new notification"),
        ])) { args in
            let dir = try args.required("dir")
            var state = try DeviceState.load(dir)
            let http = try client(args, http2: true)
            defer { http.shutdown() }
            let relayHTTP = try args.value("relay-url").map { _ in try client(args) }
            defer { relayHTTP?.shutdown() }
            let deadline = ContinuousClock.now + .seconds(Double(try args.int64("wait") ?? 0))
            // PROTOCOL.md §12: one notification is shown once, however it came (APNs, catch-up, both).
            var seen = Set(state.seenEventIDs)
            var shown = 0
            // PROTOCOL.md §13: a receipt for what is shown, and for a duplicate dropped (once a notification).
            var receipted = Set((state.receiptedKeys ?? []) + (state.pendingReceipts ?? []).map(\.key))
            func receipt(_ envelope: Envelope) {
                // Receipts are for notifications shown, not Live Activity updates.
                guard envelope.context.kind == .notification else { return }
                let key = DeviceInbox.key(of: envelope)
                guard receipted.insert(key).inserted else { return }
                state.pendingReceipts = (state.pendingReceipts ?? []) + [PendingReceipt(pairingID: envelope.context.pairingID,
                                                                                        eventID: envelope.context.eventID,
                                                                                          shownAt: WallClock.milliseconds())]
            }
            func show(_ envelope: Envelope, receivedAtMS: Int64, source: String) throws {
                let key = DeviceInbox.key(of: envelope)
                guard !seen.contains(key) else { return receipt(envelope) }
                say(try DeviceInbox.open(envelope, state: state, receivedAtMS: receivedAtMS, source: source))
                seen.insert(key)
                state.seenEventIDs.append(key)
                shown += 1
                receipt(envelope)
            }
            repeat {
                if let relayHTTP, let base = args.value("relay-url") {
                    for origin in Set(state.pairings.map(\.relay)).sorted() {
                        for envelope in try await CatchUpReader.envelopes(relayHTTP, state, base: base, origin: origin) {
                            try show(envelope, receivedAtMS: WallClock.milliseconds(), source: "catch-up")
                        }
                    }
                }
                let deliveries: [[String: Any]]
                if let record = args.value("record") {
                    let text = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
                    deliveries = text.split(separator: "\n")
                        .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                } else if let apns = args.value("apns") {
                    let r = try await http.execute(.init(url: apns + "/_sim/deliveries?since=0&limit=10000"))
                    let object = try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any]
                    deliveries = (object?["deliveries"] as? [[String: Any]]) ?? []
                } else if relayHTTP != nil {
                    deliveries = []
                } else {
                    throw DeviceError("""
                                      name the simulator with --apns URL or its record with --record FILE (or the relay with \
                                      --relay-url)
                                      """)
                }
                for d in deliveries {
                    // `held`: accepted while the device was offline, never delivered (the simulator delivers the last one when it is
                    // back).
                    guard d["status"] as? Int == 200, d["held"] as? Bool != true, let token = d["device_token"] as? String,
                          token == state.apnsToken || token == state.pushToStartToken, let payload = d["payload"] as? String
                    else { continue }
                    // A relay's service notice (outpost silent, back, mailbox failing) is no mail: its own line, never a notification.
                    if let notice = DeviceNotice.line(payload: payload) {
                        let key = "notice/" + ((d["apns_id"] as? String) ?? notice)
                        guard !seen.contains(key) else { continue }
                        say(notice)
                        seen.insert(key)
                        state.seenEventIDs.append(key)
                        shown += 1
                        continue
                    }
                    try show(try DeviceInbox.envelope(inPayload: payload),
                             receivedAtMS: (d["received_at_ms"] as? NSNumber)?.int64Value ?? 0, source: "apns")
                }
                if shown == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
            } while shown == 0 && ContinuousClock.now < deadline
            try state.save(dir)
            // Receipts go to the relay named by --relay-url; without it they wait in the device's state for a run with it.
            if let relayHTTP, let base = args.value("relay-url"), !(state.pendingReceipts ?? []).isEmpty {
                let outcome = try await ReceiptSender.send(relayHTTP, &state, base: base)
                try state.save(dir)
                StandardStreams.writeError("""
                                           receipts: \(outcome.displayed) displayed, \(outcome.duplicate) duplicate, \
                                           \(outcome.ignored) ignored, \(outcome.trimmed) trimmed from catch-up\n
                                           """)
            }
            return .success
        },
        .init(CommandSpec("unpair", summary: "End a pairing at the relay (signed by the device).", positionals: ["PAIRING_ID"], options: [
            dirOption, caOption,
            OptionSpec("relay-url", value: "URL", help: "Where the relay answers, when it differs from the pairing's relay origin"),
        ])) { args in
            let dir = try args.required("dir")
            var state = try DeviceState.load(dir)
            let id = args.positionals[0]
            guard let pairing = state.pairings.first(where: { $0.pairingID == id }) else { throw DeviceError("""
                no pairing \(id) on \
                this device
                """) }
            let http = try client(args)
            defer { http.shutdown() }
            let r = try await signed(http, state, .delete, base: args.value("relay-url") ?? pairing.relay, origin: pairing.relay,
                                     path: "/v1/pairings/\(id)", body: nil)
            guard r.status == .noContent else { throw DeviceError("the relay answered \(r.status.code): \(r.text)") }
            state.pairings.removeAll { $0.pairingID == id }
            try state.save(dir)
            say("unpaired \(id)")
            return .success
        },
    ])
await tool.main()
