import Foundation
import MailwakeCrypto
import MailwakeDeviceKit
import MailwakeProtocol
import OutpostService
import StackSupport
import TestSupport
import Testing

/// `mailwake-outpost invite`, `devices grant|revoke|list`, `changes` and
/// `inspect --body`, with a real `serve` process answering the App.
@Suite("Outpost: invitations and permissions on the command line", .serialized, .awaitedCleanup)
struct InviteCommandLineTests {
    static func run(_ arguments: [String]) async throws -> (Int32, String) {
        try await MailboxCommandLineTests.run(arguments)
    }

    @Test func anInvitationForManageContentAndPushIsRedeemedAndPairedThroughTheRelay() async throws {
        let stack = try await RelayStack.start()
        let device = try await stack.registeredDevice()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let dir = scratch.file("outpost")
        try await OutpostCommandLineTests.initOutpost(at: dir, relayOf: stack)
        let port = try PortAllocator.freePort()
        let origin = "https://127.0.0.1:\(port)"
        let config = try scratch.write("outpost.env",
                                       "MAILWAKE_OUTPOST_LISTEN=127.0.0.1:\(port)\nMAILWAKE_OUTPOST_PUBLIC_URL=\(origin)\nMAILWAKE_OUTPO" +
                                       "ST_ADMIN_LISTEN=\n")
        let serve = try TestServerProcess(executable: OutpostCommandLineTests.executable,
                                          arguments: ["serve", "--data-dir", dir, "--config", config],
                                          logName: "outpost-serve")
        defer { serve.stop() }
        #expect(await Blocking.run { serve.waitForListener(port: port) }, "\(serve.logText())")

        let invite = try TestServerProcess(executable: OutpostCommandLineTests.executable,
                                           arguments: ["invite", "--data-dir", dir, "--config", config, "--scope", "manage,content,push",
                                                       "--no-qr"],
                                           logName: "outpost-invite", pipeStdout: true)
        defer { invite.stop() }
        var transcript: [String] = []
        var link: ManagementLink?
        while link == nil {
            guard let line = await Blocking.run({ invite.readStdoutLine() }) else { break }
            transcript.append(line)
            if line.hasPrefix("mailwake://manage?") { link = try ManagementLink.parse(line) }
        }
        let scanned = try #require(link, "no link in: \(transcript.joined(separator: "\n")) \(invite.logText())")
        #expect(scanned.url == origin && scanned.scopes == [.content, .manage, .push])
        #expect(transcript.contains { $0.contains("self-signed certificate, pinned by the link") })

        // The App: checks the pin (the session refuses any other key), redeems, then consents to the push pairing at the relay.
        let session = try OutpostSession(origin: scanned.url, pin: scanned.pin, signing: device.signing)
        defer { session.shutdown() }
        let redeemed = try await session.redeem(scanned, agreement: device.agreement.publicKey)
        #expect(redeemed.status == .ok, "\(redeemed.text)")
        let pairing = try #require(scanned.pairingLink)
        let consent = try await stack.send(.post, "/v1/pairings/\(pairing.pairingID)/consent",
                                           body: try device.consent(to: pairing).jsonBytes)
        #expect(consent.status == .accepted)
        while invite.isRunning || !transcript.contains(where: { $0.hasPrefix("Paired for push") }) {
            guard let line = await Blocking.run({ invite.readStdoutLine() }) else { break }
            transcript.append(line)
        }
        #expect(transcript.contains("Redeemed by device \(device.id)"), "\(transcript)")
        #expect(transcript.contains { $0.hasPrefix("Paired for push: device \(device.id)") }, "\(transcript)")
        #expect(try await session.send(.get, "/v1/status").status == .ok)

        let (_, listed) = try await Self.run(["devices", "list", "--data-dir", dir])
        #expect(listed.contains("device \(device.id)") && listed.contains("permissions: content, manage, push"), "\(listed)")
        let (revokeStatus, _) = try await Self.run(["devices", "revoke", device.id, "manage", "--data-dir", dir])
        #expect(revokeStatus == 0)
        #expect(try await session.send(.get, "/v1/status").status == .forbidden, "revocation takes effect on the next request")
        let (grantStatus, _) = try await Self.run(["devices", "grant", device.id, "manage", "--data-dir", dir])
        #expect(grantStatus == 0)
        #expect(try await session.send(.get, "/v1/status").status == .ok)
        let (_, changes) = try await Self.run(["changes", "--data-dir", dir])
        #expect(changes.contains("cli  revoke  manage from \(device.id)")
            && changes.contains("\(device.id)  redeem  granted content,manage"), "\(changes)")
        let (badScope, refused) = try await Self.run(["devices", "grant", device.id, "push", "--data-dir", dir])
        #expect(badScope != 0 && refused.contains("push is granted by pairing"), "\(refused)")
    }

    @Test func inspectBodyPrintsTheSanitizedDocument() async throws {
        let (status, output) = try await Self.run(["inspect", "--body", RepositoryPaths.file("Tests/Fixtures/mime/related.eml").path])
        #expect(status == 0, "\(output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let html = try #require(json["html"] as? String)
        #expect(!html.contains("<script") && html.contains("data-mw-remote-src=\"https://t.northwind.example/o.gif\""))
        #expect(html.contains("/v1/messages/part?ref=REF&amp;cid=logo%40northwind.example"))
        #expect((json["headers"] as? [String: Any])?["subject"] as? String == "Your receipt — order NW-58120")
    }

    @Test func inspectBodyOfSomethingThatIsNoMessageSaysSo() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (status, output) = try await Self.run(["inspect", "--body", try scratch.write("empty.eml", "")])
        #expect(status != 0)
        #expect(output.contains("not an e-mail message"), "\(output)")
    }
}
