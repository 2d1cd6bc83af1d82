import Foundation
public import MailwakeIMAP

/// `mailbox test`: connects, logs in, lists folders and reports the
/// capabilities that matter to the outpost.
public struct MailboxProbe: Sendable {
    public let capabilities: Set<String>
    public let folders: [IMAPFolder]
    public let tlsVersion: String?
    public let endpoint: IMAPEndpoint

    /// Runs the probe on a thread of its own; throws the IMAP error (never the secret).
    public static func run(_ record: MailboxRecord, secret: String) async throws -> MailboxProbe {
        let credentials = MailboxCredentials(record: record, secret: secret)
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { () throws(IMAPError) -> MailboxProbe in
                    defer { TLSStream.threadDone() }
                    let client = try IMAPClient(endpoint: record.endpoint)
                    defer { client.logout() }
                    try client.authenticate(try credentials.current())
                    return MailboxProbe(capabilities: client.capabilities.union(client.authenticationMechanisms),
                                        folders: try client.listFolders(), tlsVersion: client.tlsVersion,
                                        endpoint: record.endpoint)
                }.mapError { $0 as any Error })
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// What `mailbox test` prints.
    public var text: String {
        func has(_ c: String) -> String { capabilities.contains(c) ? "yes" : "no" }
        var lines = [
            "connected:     \(endpoint.host):\(endpoint.port), \(tlsVersion ?? "no TLS (loopback)")",
            "logged in:     yes",
            "IDLE:          " +
            "\(has("IDLE"))\(capabilities.contains("IDLE") ? "" : " (the outpost polls instead: notifications come later)")",
            "CONDSTORE:     \(has("CONDSTORE"))",
            "QRESYNC:       \(has("QRESYNC"))",
            "XOAUTH2:       \(has("AUTH=XOAUTH2"))",
            "folders:",
        ]
        for f in folders where f.isSelectable { lines.append("    \(f.name)") }
        return lines.joined(separator: "\n")
    }
}
