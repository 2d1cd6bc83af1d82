import Foundation
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeIMAP
import MailwakeProtocol

/// The management API: everything behind the `manage` permission. Every
/// change is written to the administrator log with the device that made it.
extension OutpostAPI {
    func addManagementRoutes(_ router: inout Router) {
        router.group(middleware: requiring(.manage)) { manage in
            manage.get("/v1/status") { _, _ in try await status() }
            manage.get("/v1/mailboxes") { _, _ in try await listMailboxes() }
            manage.post("/v1/mailboxes") { request, context in try await addMailbox(request, by: try manager(context)) }
            manage.patch("/v1/mailboxes/{id}") { request, context in
                try await updateMailbox(request, id: try mailboxID(context), by: try manager(context))
            }
            manage.delete("/v1/mailboxes/{id}") { _, context in try await removeMailbox(id: try mailboxID(context),
                                                                                        by: try manager(context)) }
            manage.post("/v1/mailboxes/{id}/test") { _, context in try await testMailbox(id: try mailboxID(context)) }
            manage.get("/v1/rules") { _, _ in try await listRules() }
            manage.put("/v1/rules") { request, context in try await setRule(request, by: try manager(context)) }
            manage.delete("/v1/rules") { request, context in try await removeRule(request, by: try manager(context)) }
            manage.get("/v1/channels") { _, _ in try await listChannels() }
            manage.post("/v1/channels") { request, context in try await addChannel(request, by: try manager(context)) }
            manage.delete("/v1/channels/{name}") { _, context in try await removeChannel(try context.parameter("name"),
                                                                                         by: try manager(context)) }
            manage.post("/v1/channels/{name}/test") { _, context in try await testChannel(try context.parameter("name")) }
            manage.get("/v1/devices") { _, _ in try await listDevices() }
            manage.post("/v1/devices/{id}/permissions") { request, context in
                try await grant(request, to: try context.parameter("id"), by: try manager(context))
            }
            manage.delete("/v1/devices/{id}/permissions/{scope}") { _, context in
                try await revoke(try context.parameter("scope"), from: try context.parameter("id"), by: try manager(context))
            }
            manage.get("/v1/history") { request, _ in try await history(request) }
            manage.get("/v1/changes") { request, _ in try await changes(request) }
        }
    }

    /// The device holding `manage` that signed the request (every change is logged with it).
    private func manager(_ context: RequestContext) throws -> KnownDevice {
        try context.authenticated(DeviceAuthentication.AuthenticatedDevice.self).device
    }

    private func mailboxID(_ context: RequestContext) throws -> Int64 {
        guard let id = Int64(try context.parameter("id")),
              id > 0 else { throw HTTPError(.notFound, code: .noSuchMailbox, detail: "no mailbox with this id") }
        return id
    }

    private func json(_ status: HTTPStatus = .ok, _ write: (inout JSONWriter) -> Void) -> HTTPResponse {
        var w = JSONWriter(capacity: 1024)
        write(&w)
        return .json(bytes: w.bytes, status: status)
    }

    private func invalid(_ detail: String) -> HTTPError { HTTPError(.unprocessableContent, code: .invalidField, detail: detail) }

    // MARK: Status

    private func status() async throws -> HTTPResponse {
        let relay = try? await store.relay()
        let mailboxes = try await store.mailboxes()
        let states = try await store.folderStates()
        let devices = try await store.knownDevices()
        let pending = try await store.pendingCount()
        let channels = try await store.channels()
        return json { w in
            w.beginObject()
            w.string("outpost_id", identity.id)
            w.string("fingerprint", identity.fingerprint)
            if let relay {
                w.beginObject("relay")
                w.string("url", relay.url)
                w.string("environment", relay.environment.rawValue)
                w.endObject()
            } else {
                w.raw("relay", Array("null".utf8))
            }
            w.int("devices", Int64(devices.count))
            w.int("pending_deliveries", Int64(pending))
            w.int("channels", Int64(channels.count))
            w.beginArray("mailboxes")
            for m in mailboxes { ManagementJSON.mailbox(&w, m, states: states) }
            w.endArray()
            w.endObject()
        }
    }

    // MARK: Mailboxes

    private func listMailboxes() async throws -> HTTPResponse {
        let mailboxes = try await store.mailboxes()
        let states = try await store.folderStates()
        return json { w in
            w.beginArray()
            for m in mailboxes { ManagementJSON.mailbox(&w, m, states: states) }
            w.endArray()
        }
    }

    private func addMailbox(_ request: HTTPRequest, by device: KnownDevice) async throws -> HTTPResponse {
        let body = try request.decodeJSON(ManagementRequests.MailboxCreate.self, maxBytes: 16 * 1024)
        guard (1...64).contains(body.label.count),
              !body.label.contains("/") else { throw invalid("label must be 1 to 64 characters without '/'") }
        guard (1...253).contains(body.host.utf8.count),
              body.host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw invalid("host must be a host name or address") }
        guard let security = IMAPEndpoint.Security(rawValue: body.tls
            ?? "implicit") else { throw invalid("tls must be implicit, starttls or none") }
        if security == .none,
           !["127.0.0.1", "::1", "localhost"].contains(body.host) { throw invalid("tls none is allowed for a loopback server only") }
        guard (1...1024).contains(body.user.utf8.count),
              (1...1024).contains(body.password.utf8.count) else { throw invalid("user and password must be 1 to 1024 bytes") }
        let folders = body.folders ?? ["INBOX"]
        guard (1...100).contains(folders.count), folders.allSatisfy({ (1...512).contains($0.utf8.count) }),
              Set(folders).count == folders.count else {
            throw invalid("folders must be 1 to 100 distinct names")
        }
        let maxConnections = body.maxConnections ?? 10
        guard (1...50).contains(maxConnections) else { throw invalid("max_connections must be 1 to 50") }
        guard try await store.mailbox(label: body.label) == nil else { throw HTTPError(.conflict, code: .labelTaken,
                                                                                       detail: "a mailbox has this label already") }
        let record = MailboxRecord(label: body.label, endpoint: IMAPEndpoint(host: body.host, port: body.port, security: security),
                                   username: body.user,
                                   authentication: .password, folders: folders, maxConnections: maxConnections)
        let probe: MailboxProbe
        do { probe = try await MailboxProbe.run(record, secret: body.password) } catch {
            throw HTTPError(.unprocessableContent, code: .mailboxUnreachable,
                            detail: "the outpost could not log in to the mailbox: \(error)")
        }
        let existing = Set(probe.folders.filter(\.isSelectable).map(\.name))
        if let missing = folders.first(where: { !existing.contains($0) }) {
            throw HTTPError(.unprocessableContent, code: .noSuchFolder, detail: "the mailbox has no folder \(missing)")
        }
        let stored = try await store.addMailbox(record, secret: body.password)
        try await store.logChange(actor: device.deviceID, action: "mailbox add", detail: "\(stored.label) (\(stored.endpoint.host))")
        reconfigured?.ring()
        return json(.created) { w in ManagementJSON.mailbox(&w, stored, states: []) }
    }

    private func updateMailbox(_ request: HTTPRequest, id: Int64, by device: KnownDevice) async throws -> HTTPResponse {
        let body = try request.decodeJSON(ManagementRequests.MailboxUpdate.self, maxBytes: 16 * 1024)
        if let folders = body.folders {
            guard (1...100).contains(folders.count), folders.allSatisfy({ (1...512).contains($0.utf8.count) }),
                  Set(folders).count == folders.count else {
                throw invalid("folders must be 1 to 100 distinct names")
            }
        }
        if let n = body.maxConnections, !(1...50).contains(n) { throw invalid("max_connections must be 1 to 50") }
        if let p = body.password, !(1...1024).contains(p.utf8.count) { throw invalid("password must be 1 to 1024 bytes") }
        guard try await store.updateMailbox(id, folders: body.folders, maxConnections: body.maxConnections, enabled: body.enabled,
                                            secret: body.password),
              let updated = try await store.mailbox(id: id) else {
            throw HTTPError(.notFound, code: .noSuchMailbox, detail: "no mailbox with this id")
        }
        let changed = [body.folders.map { _ in "folders" }, body.maxConnections.map { _ in "max_connections" },
                       body.enabled.map { "enabled=\($0)" },
                       body.password.map { _ in "password" }].compactMap { $0 }
        try await store.logChange(actor: device.deviceID, action: "mailbox update",
                                  detail: "\(updated.label): \(changed.joined(separator: ", "))")
        reconfigured?.ring()
        let states = try await store.folderStates(mailboxID: id)
        return json { w in ManagementJSON.mailbox(&w, updated, states: states) }
    }

    private func removeMailbox(id: Int64, by device: KnownDevice) async throws -> HTTPResponse {
        guard let mailbox = try await store.mailbox(id: id), try await store.removeMailbox(label: mailbox.label) else {
            throw HTTPError(.notFound, code: .noSuchMailbox, detail: "no mailbox with this id")
        }
        await fetcher.closeConnections(mailboxID: id)
        try await store.logChange(actor: device.deviceID, action: "mailbox remove", detail: mailbox.label)
        reconfigured?.ring()
        return .empty()
    }

    private func testMailbox(id: Int64) async throws -> HTTPResponse {
        guard let mailbox = try await store.mailbox(id: id) else { throw HTTPError(.notFound, code: .noSuchMailbox,
                                                                                   detail: "no mailbox with this id") }
        let secret = try await store.mailboxSecret(id)
        do {
            let probe = try await MailboxProbe.run(mailbox, secret: secret)
            return json { w in
                w.beginObject()
                w.bool("ok", true)
                w.string("tls", probe.tlsVersion ?? "none")
                ManagementJSON.strings(&w, "capabilities", probe.capabilities.sorted())
                ManagementJSON.strings(&w, "folders", probe.folders.filter(\.isSelectable).map(\.name))
                w.endObject()
            }
        } catch {
            return json { w in
                w.beginObject()
                w.bool("ok", false)
                w.string("error", "\(error)")
                w.endObject()
            }
        }
    }

    // MARK: Rules

    private func listRules() async throws -> HTTPResponse {
        let rules = try await store.rules()
        return json { w in
            w.beginArray()
            for r in rules { ManagementJSON.rule(&w, r) }
            w.endArray()
        }
    }

    private func setRule(_ request: HTTPRequest, by device: KnownDevice) async throws -> HTTPResponse {
        let body = try request.decodeJSON(ManagementRequests.Rule.self, maxBytes: 64 * 1024)
        var rule = NotificationRule(mailboxID: body.mailboxID, folder: body.folder)
        if body.folder != nil, body.mailboxID == nil { throw invalid("folder needs mailbox_id") }
        if let id = body.mailboxID, try await store.mailbox(id: id) == nil { throw invalid("no mailbox \(id)") }
        rule.enabled = body.enabled
        if let quiet = body.quietHours {
            guard let q = NotificationRule.parseQuietHours(quiet) else { throw invalid("quiet_hours must look like 22:00-07:00") }
            rule.quietHours = q
        }
        for list in [body.allow, body.deny] where list.count > 100 || list.contains(where: { $0.isEmpty || $0.utf8.count > 256 }) {
            throw invalid("allow and deny hold at most 100 patterns of 1 to 256 bytes")
        }
        rule.allowSenders = body.allow
        rule.denySenders = body.deny
        var show = Set<NotificationRule.Field>()
        for field in body.show {
            guard let f = NotificationRule.Field(rawValue: field) else { throw invalid("show holds sender, subject or code") }
            show.insert(f)
        }
        rule.show = show
        try await store.setRule(rule)
        try await store.logChange(actor: device.deviceID, action: "rule set",
                                  detail: "mailbox \(rule.mailboxID.map(String.init) ?? "all") folder \(rule.folder ?? "all")")
        return json { w in ManagementJSON.rule(&w, rule) }
    }

    private func removeRule(_ request: HTTPRequest, by device: KnownDevice) async throws -> HTTPResponse {
        let mailboxText = request.query("mailbox_id")
        let mailboxID = try mailboxText.map { text -> Int64 in
            guard let id = Int64(text) else { throw invalid("mailbox_id must be a number") }
            return id
        }
        let folder = request.query("folder")
        guard try await store.removeRule(mailboxID: mailboxID, folder: folder) else {
            throw HTTPError(.notFound, code: .noSuchRule, detail: "no rule for this scope")
        }
        try await store.logChange(actor: device.deviceID, action: "rule remove",
                                  detail: "mailbox \(mailboxID.map(String.init) ?? "all") folder \(folder ?? "all")")
        return .empty()
    }

    // MARK: Channels

    private func listChannels() async throws -> HTTPResponse {
        let channels = try await store.channels()
        return json { w in
            w.beginArray()
            for c in channels { ManagementJSON.channel(&w, c) }
            w.endArray()
        }
    }

    private func addChannel(_ request: HTTPRequest, by device: KnownDevice) async throws -> HTTPResponse {
        let body = try request.decodeJSON(ManagementRequests.Channel.self, maxBytes: 16 * 1024)
        guard (1...64).contains(body.name.count) else { throw invalid("name must be 1 to 64 characters") }
        guard let kind = ChannelRecord.Kind(rawValue: body.kind) else { throw invalid("kind must be bark, pushover or webhook") }
        // Public https only from the App: a LAN or http target needs the owner's CLI (--allow-private).
        guard let url = URLComponents(string: body.url), url.scheme == "https", url.host?.isEmpty == false,
              body.url.utf8.count <= 2048 else {
            throw invalid("url must be an https URL")
        }
        var record = ChannelRecord(name: body.name, kind: kind, url: body.url)
        var secrets = ChannelSecrets()
        var generatedSecret: String?
        switch kind {
        case .bark:
            guard let key = body.deviceKey, (1...256).contains(key.utf8.count) else { throw invalid("device_key is required for bark") }
            secrets.deviceKey = key
            if let level = body.level {
                guard ["active", "timeSensitive", "passive",
                       "critical"].contains(level) else { throw invalid("level must be active, timeSensitive, passive or critical") }
                record.options.level = level
            }
            record.options.group = body.group
        case .pushover:
            guard let user = body.userKey, let token = body.appToken, (1...256).contains(user.utf8.count),
                  (1...256).contains(token.utf8.count) else {
                throw invalid("user_key and app_token are required for pushover")
            }
            secrets.userKey = user
            secrets.appToken = token
            if let p = body.priority {
                guard (-2...2).contains(p) else { throw invalid("priority must be -2 to 2") }
                record.options.priority = p
            }
        case .webhook:
            let secret = try body.webhookSecret ?? ChannelRequest.newWebhookSecret()
            guard ChannelRequest.webhookKey(secret) != nil else { throw invalid("webhook_secret must be whsec_ followed by base64 of 16 " +
                                                                                "to 64 bytes") }
            secrets.webhookSecret = secret
            if body.webhookSecret == nil { generatedSecret = secret }
        }
        if let link = body.link {
            guard let l = URLComponents(string: link), ["https", "http"].contains(l.scheme ?? ""),
                  link.utf8.count <= 2048 else { throw invalid("link must be an http(s) URL") }
            record.options.link = link
        }
        guard try await store.channel(name: record.name) == nil else { throw HTTPError(.conflict, code: .nameTaken,
                                                                                       detail: "a channel has this name already") }
        let stored = try await store.addChannel(record, secrets: secrets)
        try await store.logChange(actor: device.deviceID, action: "channel add", detail: "\(stored.name) (\(stored.kind.rawValue))")
        return json(.created) { w in
            w.beginObject()
            w.raw("channel", {
                var inner = JSONWriter()
                ManagementJSON.channel(&inner, stored)
                return inner.bytes
            }())
            if let generatedSecret { w.string("webhook_secret", generatedSecret) }
            w.endObject()
        }
    }

    private func removeChannel(_ name: String, by device: KnownDevice) async throws -> HTTPResponse {
        guard try await store.removeChannel(name: name) else { throw HTTPError(.notFound, code: .noSuchChannel,
                                                                               detail: "no channel with this name") }
        try await store.logChange(actor: device.deviceID, action: "channel remove", detail: name)
        return .empty()
    }

    private func testChannel(_ name: String) async throws -> HTTPResponse {
        guard let channel = try await store.channel(name: name) else { throw HTTPError(.notFound, code: .noSuchChannel,
                                                                                       detail: "no channel with this name") }
        let secrets = try await store.channelSecrets(channel.id)
        let now = clock()
        let content = NotificationContent(mailbox: "test", folder: "INBOX",
                                          from: .init(name: "Mailwake outpost", address: "outpost@localhost"),
                                          subject: "Test notification from your outpost", receivedAt: UInt64(now), code: "123456")
        let sender = ChannelSender()
        defer { sender.shutdown() }
        let outcome = await sender.send(content, eventID: try EventID.generate(), channel: channel, secrets: secrets, now: now)
        return json { w in
            w.beginObject()
            switch outcome {
            case .sent:
                w.bool("sent", true)
            case .retry(_, let reason), .failed(let reason), .disable(let reason):
                w.bool("sent", false)
                w.string("reason", reason)
            }
            w.endObject()
        }
    }

    // MARK: Devices and permissions

    private func listDevices() async throws -> HTTPResponse {
        let devices = try await store.knownDevices()
        let pairings = try await store.pairings()
        return json { w in
            w.beginArray()
            for d in devices { ManagementJSON.device(&w, d, pairings: pairings) }
            w.endArray()
        }
    }

    private func grant(_ request: HTTPRequest, to deviceID: String, by device: KnownDevice) async throws -> HTTPResponse {
        let body = try request.decodeJSON(ManagementRequests.Grant.self, maxBytes: 16 * 1024)
        guard let scope = ManagementScope(rawValue: body.scope), scope != .push else {
            throw invalid("scope must be manage or content (push is granted by pairing through the relay)")
        }
        if let ids = body.mailboxIDs {
            let known = Set(try await store.mailboxes().map(\.id))
            guard !ids.isEmpty, ids.count <= 100,
                  ids.allSatisfy(known.contains) else { throw invalid("mailbox_ids must name existing mailboxes") }
        }
        guard try await store.knownDevice(deviceID) != nil else { throw HTTPError(.notFound, code: .noSuchDevice,
                                                                                  detail: "no device with this id") }
        try await store.grant(scope, to: deviceID, mailboxIDs: scope == .content ? body.mailboxIDs : nil, by: device.deviceID)
        let updated = try await store.knownDevice(deviceID)!
        let pairings = try await store.pairings()
        return json { w in ManagementJSON.device(&w, updated, pairings: pairings) }
    }

    private func revoke(_ scopeName: String, from deviceID: String, by device: KnownDevice) async throws -> HTTPResponse {
        guard let scope = ManagementScope(rawValue: scopeName) else { throw HTTPError(.notFound, code: .noSuchScope,
                                                                                      detail: "a scope is manage, content or push") }
        guard !(scope == .manage && deviceID == device.deviceID) else {
            throw HTTPError(.conflict, code: .ownManagePermission,
                            detail: "a device cannot revoke its own manage permission: another managing device or `mailwake-outpost " +
                                    "devices revoke` can")
        }
        guard scope != .push else {
            throw HTTPError(.conflict, code: .pushViaRelay,
                            detail: "push ends by unpairing: DELETE /v1/pairings/{id} at the relay, or `mailwake-outpost devices revoke " +
                                    "ID push`")
        }
        guard try await store.revoke(scope, from: deviceID, by: device.deviceID) else {
            throw HTTPError(.notFound, code: .noSuchPermission, detail: "the device does not hold this permission")
        }
        return .empty()
    }

    // MARK: History and changes

    private func history(_ request: HTTPRequest) async throws -> HTTPResponse {
        let days = try request.query("days").map { text -> Int in
            guard let n = Int(text), (1...3650).contains(n) else { throw invalid("days must be 1 to 3650") }
            return n
        } ?? 7
        let entries = try await store.history(days: days)
        return json { w in
            w.beginArray()
            for e in entries { ManagementJSON.history(&w, e) }
            w.endArray()
        }
    }

    private func changes(_ request: HTTPRequest) async throws -> HTTPResponse {
        let limit = try request.query("limit").map { text -> Int in
            guard let n = Int(text), (1...1000).contains(n) else { throw invalid("limit must be 1 to 1000") }
            return n
        } ?? 100
        let entries = try await store.adminLog(limit: limit)
        return json { w in
            w.beginArray()
            for e in entries { ManagementJSON.change(&w, e) }
            w.endArray()
        }
    }
}
