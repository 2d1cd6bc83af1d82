import Foundation
import MailwakeCrypto
import MailwakeDeviceKit
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakeIMAP
import MailwakeProtocol
@testable import OutpostService
import StackSupport
import TestSupport
import Testing

/// The App manages the outpost over HTTPS with the `manage` permission:
/// mailboxes, rules, channels, devices and permissions, history; every
/// change is logged with the device that made it.
@Suite("Outpost: management over HTTPS", .serialized, .awaitedCleanup)
struct ManagementAPITests {
    static func body(_ object: [String: Any]) throws -> [UInt8] { Array(try JSONSerialization.data(withJSONObject: object)) }

    @Test func theOpenAPIDocumentListsEveryRouteAndNoOther() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (store, identity) = try await OutpostStore.initialize(DataDirectory(path: scratch.file("outpost")))
        let api = OutpostAPI(store: store, identity: identity, fetcher: MessageFetcher(store: store),
                             origin: "https://outpost.example:8443")
        let served = Set(api.router().routeList)
        await store.close()
        let documented = try OpenAPIRoutes.routes(inFile: RepositoryPaths.file("Services/Outpost/openapi.yaml").path)
        #expect(served.count >= 18)
        #expect(served.subtracting(documented).isEmpty, "undocumented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
    }

    @Test func aMailboxAddedFromTheAppIsWatchedAndItsMailNotified() async throws {
        let h = try await OutpostAPIHarness.start()
        let admin = try await h.grant([.manage], to: h.watch.device)
        h.watch.startWatching(liveActivityLifetime: 0)
        _ = try await h.watch.waitForWatchState(.idle)
        try h.watch.dovecot.addUser("bob", password: "bobs password")
        let created = try await admin.send(.post, "/v1/mailboxes", body: try Self.body([
            "label": "work", "host": "localhost", "port": Int(h.watch.dovecot.imapPort), "tls": "starttls", "user": "bob",
            "password": "bobs password",
        ]))
        // The test Dovecot's CA is not the system's: STARTTLS against it fails verification, which the API reports.
        #expect(created.status == .unprocessableContent, "\(created.text)")
        #expect(created.problemCode == "mailbox-unreachable")
        #expect(try await h.store.mailbox(label: "work") == nil, "nothing is stored when the login fails")

        // With the CA the outpost trusts (set by its owner), the same account is added and watched.
        var record = h.watch.mailbox
        record.label = "work"
        record.username = "bob"
        let stored = try await h.store.addMailbox(record, secret: "bobs password")
        h.watch.reconfigured.ring()
        let listed = try await admin.send(.get, "/v1/mailboxes")
        #expect(try listed.decode([OutpostResponses.Mailbox].self).map(\.label) == ["personal", "work"])
        #expect(!listed.text.contains("bobs password"))
        let patched = try await admin.send(.patch, "/v1/mailboxes/\(stored.id)",
                                           body: try Self.body(["folders": ["INBOX"], "max_connections": 2]))
        #expect(patched.status == .ok, "\(patched.text)")
        _ = try await h.watch.waitForWatchState(.idle, mailboxID: stored.id)
        try await h.watch.appendAs("bob", "bobs password", MailWatchHarness.message(subject: "For Bob", body: "Hello Bob."))
        let received = try await h.watch.notifications(count: 1)
        #expect(received.last?.subject == "For Bob")
        #expect(received.last?.mailbox == "work")
        let log = try await h.store.adminLog()
        #expect(log.first?.actor == h.watch.device.id)
        #expect(log.first?.action == "mailbox update")
    }

    @Test func aWrongPasswordIsReportedAndNothingStored() async throws {
        let h = try await OutpostAPIHarness.start()
        let admin = try await h.grant([.manage], to: h.watch.device)
        let created = try await admin.send(.post, "/v1/mailboxes", body: try Self.body([
            "label": "work", "host": "localhost", "port": Int(h.watch.dovecot.imapPort), "tls": "starttls", "user": MailWatchHarness.user,
            "password": "wrong",
        ]))
        #expect(created.status == .unprocessableContent)
        #expect(try await h.store.mailboxes().count == 1)
    }

    @Test func rulesAreSetListedAndRemoved() async throws {
        let h = try await OutpostAPIHarness.start()
        let admin = try await h.grant([.manage], to: h.watch.device)
        let set = try await admin.send(.put, "/v1/rules", body: try Self.body([
            "mailbox_id": h.watch.mailbox.id, "quiet_hours": "22:00-07:00", "deny": ["*@spam.example"], "show": ["sender", "code"],
        ]))
        #expect(set.status == .ok, "\(set.text)")
        let rule = try await h.store.rule(mailboxID: h.watch.mailbox.id, folder: "INBOX")
        #expect(rule.quietHours?.start == 22 * 60 && rule.denySenders == ["*@spam.example"] && rule.show == [.sender, .code])
        #expect(try await admin.send(.get, "/v1/rules").decode([OutpostResponses.Entry].self).count == 1)
        #expect(try await admin.send(.delete, "/v1/rules?mailbox_id=\(h.watch.mailbox.id)").status == .noContent)
        #expect(try await admin.send(.delete, "/v1/rules?mailbox_id=\(h.watch.mailbox.id)").status == .notFound)
        let bad = try await admin.send(.put, "/v1/rules", body: try Self.body(["quiet_hours": "25:00-07:00"]))
        #expect(bad.status == .unprocessableContent)
        #expect(bad.problemCode == "invalid-field")
    }

    @Test func channelsAreAddedWithoutShowingTheirSecrets() async throws {
        let h = try await OutpostAPIHarness.start()
        let admin = try await h.grant([.manage], to: h.watch.device)
        let created = try await admin.send(.post, "/v1/channels",
                                           body: try Self.body(["name": "hook", "kind": "webhook", "url": "https://hooks.example/mail"]))
        #expect(created.status == .created, "\(created.text)")
        let secret = try created.decode(OutpostResponses.ChannelCreated.self).webhookSecret
        #expect(secret.hasPrefix("whsec_"))
        let listed = try await admin.send(.get, "/v1/channels")
        #expect(listed.text.contains("\"name\":\"hook\"") && !listed.text.contains(secret))
        let privateTarget = try await admin.send(.post, "/v1/channels",
                                                 body: try Self.body(["name": "lan", "kind": "webhook", "url": "http://192.168.1.5/hook"]))
        #expect(privateTarget.status == .unprocessableContent, "plain http and LAN targets need the owner's CLI")
        #expect(try await admin.send(.delete, "/v1/channels/hook").status == .noContent)
        #expect(try await h.store.channels().isEmpty)
    }

    @Test func permissionsAreGrantedAndRevokedFromTheApp() async throws {
        let h = try await OutpostAPIHarness.start()
        let admin = try await h.grant([.manage], to: h.watch.device)
        let other = try SimulatedDevice()
        let reader = try await h.grant([.content], to: other)
        let note = try await h.deliver(BodyReadingTests.newsletter())
        let ownRef = try MessageReference(outpostID: h.identity.id, deviceID: other.id, mailboxID: String(h.watch.mailbox.id),
                                          folder: "INBOX",
                                          uidValidity: try #require(try await h.store.folderState(mailboxID: h.watch.mailbox.id,
                                              folder: "INBOX")?.uidValidity),
                                          uid: try #require(try await h.store.folderState(mailboxID: h.watch.mailbox.id,
                                                                                          folder: "INBOX")?.lastUID),
                                          iat: UInt64(Date().timeIntervalSince1970)).sign(with: h.identity.signingKey)
        #expect(note.subject == "Harbour news")
        #expect(try await reader.body(ref: ownRef).status == .ok)
        #expect(try await admin.send(.delete, "/v1/devices/\(other.id)/permissions/content").status == .noContent)
        #expect(try await reader.body(ref: ownRef).status == .forbidden)
        let granted = try await admin.send(.post, "/v1/devices/\(other.id)/permissions",
                                           body: try Self.body(["scope": "content", "mailbox_ids": [h.watch.mailbox.id]]))
        #expect(granted.status == .ok, "\(granted.text)")
        #expect(try await reader.body(ref: ownRef).status == .ok)
        let push = try await admin.send(.delete, "/v1/devices/\(h.watch.device.id)/permissions/push")
        #expect(push.status == .conflict && push.problemCode == "push-via-relay")
        #expect(try await admin.send(.get, "/v1/devices").decode([OutpostResponses.Entry].self).count == 2)
        let changes = try await admin.send(.get, "/v1/changes").decode([OutpostResponses.Change].self)
        #expect(changes.contains { $0.action == "revoke" && $0.actor == h.watch.device.id })
        #expect(changes.contains { $0.action == "grant" && $0.actor == h.watch.device.id })
    }

    @Test func historyAndStatusShowSummariesOnly() async throws {
        let h = try await OutpostAPIHarness.start()
        let admin = try await h.grant([.manage], to: h.watch.device)
        _ = try await h.deliver(MailWatchHarness.message(subject: "Quarterly numbers", body: "The body stays on the mail server."))
        let history = try await admin.send(.get, "/v1/history?days=1")
        #expect(history.status == .ok)
        #expect(history.text.contains("Quarterly numbers") && !history.text.contains("The body stays"))
        let status = try await admin.send(.get, "/v1/status").decode(OutpostResponses.Status.self)
        #expect(status.outpostID == h.identity.id)
        #expect(try await admin.send(.get, "/v1/history?days=0").problemCode == "invalid-field")
    }

    @Test func everyManagementRouteNeedsTheManagePermission() async throws {
        let h = try await OutpostAPIHarness.start()
        let reader = try await h.grant([.content], to: h.watch.device)
        let routes: [(HTTPMethod, String, [UInt8]?)] = [
            (.get, "/v1/status", nil), (.get, "/v1/mailboxes", nil), (.post, "/v1/mailboxes", Array("{}".utf8)),
            (.patch, "/v1/mailboxes/1", Array("{}".utf8)), (.delete, "/v1/mailboxes/1", nil), (.post, "/v1/mailboxes/1/test", nil),
            (.get, "/v1/rules", nil), (.put, "/v1/rules", Array("{}".utf8)), (.delete, "/v1/rules", nil), (.get, "/v1/channels", nil),
            (.post, "/v1/channels", Array("{}".utf8)), (.delete, "/v1/channels/x", nil), (.post, "/v1/channels/x/test", nil),
            (.get, "/v1/devices", nil), (.post, "/v1/devices/x/permissions", Array("{}".utf8)),
            (.delete, "/v1/devices/x/permissions/content", nil),
            (.get, "/v1/history", nil), (.get, "/v1/changes", nil),
        ]
        for (method, path, body) in routes {
            let response = try await reader.send(method, path, body: body)
            #expect(response.status == .forbidden, "\(method) \(path): \(response.status.code)")
            #expect(response.problemCode == "permission-missing")
        }
        #expect(try await h.store.mailboxes().count == 1)
    }

    @Test(arguments: [
        ("/v1/mailboxes", "{\"label\":\"x\"}"),
        ("/v1/mailboxes", "{\"label\":\"x\",\"host\":\"h\",\"user\":\"u\",\"password\":\"p\",\"extra\":1}"),
        ("/v1/mailboxes", "[1]"), ("/v1/channels", "{\"name\":\"n\",\"kind\":\"fax\",\"url\":\"https://x.example\"}"),
        ("/v1/devices/x/permissions", "{\"scope\":\"push\"}"),
        ("/v1/mailboxes", "{\"label\":\"x\",\"host\":\"h\",\"user\":\"u\",\"password\":\"p\",\"tls\":\"none\"}"),
    ])
    func malformedBodiesAreRefusedClearly(_ path: String, _ body: String) async throws {
        let h = try await OutpostAPIHarness.start()
        let admin = try await h.grant([.manage], to: h.watch.device)
        let response = try await admin.send(.post, path, body: Array(body.utf8))
        #expect([400, 404, 422].contains(response.status.code), "\(response.status.code) \(response.text)")
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(try await h.store.mailboxes().count == 1)
        #expect(try await h.store.channels().isEmpty)
    }
}
