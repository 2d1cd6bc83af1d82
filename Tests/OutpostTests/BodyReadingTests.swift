import Foundation
import MailwakeCrypto
import MailwakeDeviceKit
import MailwakeHTTPClient
import MailwakeProtocol
@testable import OutpostService
import StackSupport
import TestSupport
import Testing

/// The App reads a message's body straight from the outpost, which fetches it
/// from Dovecot and sanitizes it; only a device holding `content` for that
/// mailbox, with a reference issued to it, gets it.
@Suite("Outpost: body reading over HTTPS", .serialized, .awaitedCleanup)
struct BodyReadingTests {
    static let png: [UInt8] = Array(Data(base64Encoded: """
                                                        iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awA\
                                                        AAABJRU5ErkJggg==
                                                        """)!)

    static func newsletter(subject: String = "Harbour news") -> [UInt8] {
        Array("""
        From: Harbour <news@harbour.example>\r
        To: Alice <alice@example.com>\r
        Subject: \(subject)\r
        Date: Sun, 29 Nov 2026 09:00:00 +0000\r
        MIME-Version: 1.0\r
        Content-Type: multipart/related; boundary="rel"\r
        \r
        --rel\r
        Content-Type: text/html; charset=utf-8\r
        \r
        <table width="600"><tr><td style="padding:8px;position:fixed">Ferries run <b>late</b>.<img src="cid:logo@harbour"><img \
        src="https://t.harbour.example/o.gif"></td></tr></table><script>alert(1)</script>\r
        --rel\r
        Content-Type: image/png\r
        Content-ID: <logo@harbour>\r
        Content-Transfer-Encoding: base64\r
        \r
        \(Data(png).base64EncodedString())\r
        --rel--\r

        """.utf8)
    }

    @Test func aDeviceWithContentPermissionReadsTheBodyOfItsNotification() async throws {
        let h = try await OutpostAPIHarness.start()
        let session = try await h.grant([.content], to: h.watch.device)
        let note = try await h.deliver(Self.newsletter())
        let ref = try #require(note.ref)
        let response = try await session.body(ref: ref)
        #expect(response.status == .ok, "\(response.text)")
        let body = try response.decode(OutpostResponses.Body.self)
        #expect(body.headers.subject == "Harbour news")
        #expect(body.headers.from.first?.address == "news@harbour.example")
        let html = try #require(body.html)
        #expect(html.contains("<td style=\"padding:8px\">Ferries run <b>late</b>."))
        #expect(!html.contains("script") && !html.contains("position"))
        #expect(html.contains("data-mw-remote-src=\"https://t.harbour.example/o.gif\""))
        #expect(body.text == "Ferries run late.")
        let url = try #require(body.images.first?.url)
        #expect(url == BodyRoutes.partPath(ref: ref, contentID: "logo@harbour"))
        let image = try await session.send(.get, url)
        #expect(image.status == .ok)
        #expect(image.headers["Content-Type"] == "image/png")
        #expect(image.body == Self.png)
        let flags = try await h.watch.dovecot.doveadm(["fetch", "-u", MailWatchHarness.user, "flags", "mailbox", "INBOX"])
        #expect(!flags.contains("\\Seen"), "reading the body leaves the message unread")
    }

    @Test func nothingOfTheBodyIsStoredOnTheOutpost() async throws {
        let h = try await OutpostAPIHarness.start()
        let session = try await h.grant([.content], to: h.watch.device)
        let marker = "Zebra-\(UUID().uuidString)-crossing"
        let note = try await h.deliver(MailWatchHarness.message(subject: "Plain", body: "The body holds \(marker) and nothing else."))
        let read = try await session.body(ref: try #require(note.ref))
        #expect(read.text.contains(marker))
        // The database, its write-ahead log and everything else in the data directory.
        let files = try FileManager.default.subpathsOfDirectory(atPath: h.watch.outpost.directory.path)
        #expect(files.contains("outpost.db"))
        for file in files {
            var isDirectory: ObjCBool = false
            let path = h.watch.outpost.directory.path + "/" + file
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(file) holds the body")
        }
    }

    @Test func everyAnswerIsUncachableAndUnsniffable() async throws {
        let h = try await OutpostAPIHarness.start()
        let session = try await h.grant([.content], to: h.watch.device)
        let note = try await h.deliver(Self.newsletter())
        let answers = [
            try await session.body(ref: try #require(note.ref)),
            try await session.part(ref: note.ref!, contentID: "logo@harbour"),
            try await session.body(ref: "junk"),
            try await session.send(.get, "/v1/no-such-route"),
            try await OutpostSession(origin: h.origin, pin: h.pin, signing: P256.Signing.PrivateKey()).body(ref: note.ref!),
        ]
        for answer in answers {
            #expect(answer.headers["Cache-Control"] == "no-store", "\(answer.status.code)")
            #expect(answer.headers["X-Content-Type-Options"] == "nosniff")
            #expect(answer.headers["Referrer-Policy"] == "no-referrer")
            #expect(answer.headers["Content-Security-Policy"] == "default-src 'none'; frame-ancestors 'none'")
        }
        #expect(answers.map(\.status.code) == [200, 200, 400, 404, 401])
    }

    @Test func aPairedDeviceWithoutContentPermissionIsRefused() async throws {
        let h = try await OutpostAPIHarness.start()
        let note = try await h.deliver(Self.newsletter())
        let session = try h.session(h.watch.device)   // paired for push only
        let response = try await session.body(ref: try #require(note.ref))
        #expect(response.status == .forbidden)
        #expect(response.problemCode == "permission-missing")
    }

    @Test func aReferenceIssuedToAnotherDeviceIsRefused() async throws {
        let h = try await OutpostAPIHarness.start()
        let note = try await h.deliver(Self.newsletter())
        let other = try await h.watch.stack.registeredDevice()
        let session = try await h.grant([.content], to: other)
        let response = try await session.body(ref: try #require(note.ref))
        #expect(response.status == .forbidden)
        #expect(response.problemCode == "ref-refused")
    }

    @Test func aReferenceWithAFlippedBitIsRefused() async throws {
        let h = try await OutpostAPIHarness.start()
        let session = try await h.grant([.content], to: h.watch.device)
        let note = try await h.deliver(Self.newsletter())
        var ref = Array(try #require(note.ref).utf8)
        let i = ref.count - 5
        ref[i] = ref[i] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let response = try await session.body(ref: String(decoding: ref, as: UTF8.self))
        #expect(response.status == .forbidden)
        #expect(response.problemCode == "ref-refused")
    }

    @Test func aMailboxOutsideThePermissionIsRefused() async throws {
        let h = try await OutpostAPIHarness.start()
        let note = try await h.deliver(Self.newsletter())
        var other = h.watch.mailbox
        other.label = "work"
        let work = try await h.store.addMailbox(other, secret: MailWatchHarness.password)
        let session = try await h.grant([.content], to: h.watch.device, mailboxIDs: [work.id])
        let response = try await session.body(ref: try #require(note.ref))
        #expect(response.status == .forbidden)
        #expect(response.problemCode == "mailbox-not-permitted")
    }

    @Test func revokingContentStopsTheNextRead() async throws {
        let h = try await OutpostAPIHarness.start()
        let session = try await h.grant([.content], to: h.watch.device)
        let note = try await h.deliver(Self.newsletter())
        #expect(try await session.body(ref: try #require(note.ref)).status == .ok)
        #expect(try await h.store.revoke(.content, from: h.watch.device.id, by: "cli"))
        let after = try await session.body(ref: note.ref!)
        #expect(after.status == .forbidden)
        #expect(after.problemCode == "permission-missing")
    }

    @Test func unknownDevicesBadSignaturesReplaysAndSkewAreRefused() async throws {
        let h = try await OutpostAPIHarness.start()
        let session = try await h.grant([.content], to: h.watch.device)
        let note = try await h.deliver(Self.newsletter())
        let path = "/v1/messages/body?ref=\(OutpostSession.encode(try #require(note.ref)))"
        func code(_ r: HTTPClient.Response) -> String { r.problemCode ?? "" }

        let stranger = try OutpostSession(origin: h.origin, pin: h.pin, signing: P256.Signing.PrivateKey())
        defer { stranger.shutdown() }
        #expect(code(try await stranger.send(.get, path)) == "unknown-device")
        #expect(code(try await session.send(.get, path, signedTarget: path + "x")) == "bad_signature")
        #expect(code(try await session.send(.get, path, timestamp: Int64(Date().timeIntervalSince1970) - 400)) == "clock_skew")
        let nonce = try SecureRandom.bytes(16)
        #expect(try await session.send(.get, path, nonce: nonce).status == .ok)
        #expect(code(try await session.send(.get, path, nonce: nonce)) == "replayed")
        let unsigned = try await session.client.execute(.init(method: .get, url: h.origin + path))
        #expect(unsigned.status == .unauthorized)
    }

    @Test func aResetFolderOrADeletedMessageAnswersClearly() async throws {
        let h = try await OutpostAPIHarness.start()
        let session = try await h.grant([.content], to: h.watch.device)
        let first = try await h.deliver(Self.newsletter(subject: "one"))
        _ = try await h.watch.dovecot.doveadm(["expunge", "-u", MailWatchHarness.user, "mailbox", "INBOX", "subject", "one"])
        let gone = try await session.body(ref: try #require(first.ref))
        #expect(gone.status == .notFound)
        #expect(gone.problemCode == "message-gone")
        let second = try await h.deliver(Self.newsletter(subject: "two"), count: 2)
        await h.watch.stopWatching()
        try await h.watch.dovecot.setUIDValidity(MailWatchHarness.user, 4242)
        let reset = try await session.body(ref: try #require(second.ref))
        #expect(reset.status == .gone)
        #expect(reset.problemCode == "folder-reset")
    }

    @Test func aServerWithAnotherKeyIsNotTrusted() async throws {
        let h = try await OutpostAPIHarness.start()
        let wrongPin = SHA256.hash(Array("not the outpost's key".utf8)).bytes
        let session = try OutpostSession(origin: h.origin, pin: wrongPin, signing: h.watch.device.signing)
        defer { session.shutdown() }
        do {
            _ = try await session.body(ref: "x")
            Issue.record("a server with another key answered")
        } catch let error as HTTPClientError {
            #expect(error.code == .pinMismatch)
        }
    }
}
