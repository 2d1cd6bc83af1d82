import Foundation
import MailwakeIMAP
import Synchronization

/// Fetches single messages for body reading over a small pool of logged-in
/// IMAP connections per mailbox, each used by one request at a time on a
/// thread of its own. Nothing fetched is kept: bytes go back to the caller.
public actor MessageFetcher {
    /// Settings of a fetcher.
    public struct Configuration: Sendable {
        /// Bytes of a message fetched at most; larger ones are cut (and marked). Default 10 MiB.
        public var maxMessageBytes: Int = 10 << 20
        /// Idle connections kept per mailbox. Default 2.
        public var idleConnectionsPerMailbox: Int = 2
        /// Seconds an idle connection is kept. Default 120.
        public var idleSeconds: Double = 120

        public init() {}
    }

    /// Why a message could not be fetched.
    public enum Failure: Error, Equatable {
        /// The folder's UIDVALIDITY changed: the reference is stale.
        case folderReset
        /// No such message (deleted or moved).
        case gone
        /// The server could not be reached or refused (the IMAP error's text).
        case server(String)
    }

    /// What one fetch found.
    enum Outcome: Sendable {
        case found([UInt8], Int)
        case folderReset
        case gone
    }

    /// An authenticated connection.
    // Safe to share: a connection is checked out of the pool by exactly one request, which uses it from one thread until it checks it back
    // in.
    final class Connection: @unchecked Sendable {
        let client: IMAPClient
        var lastUsed = Date()

        init(client: IMAPClient) { self.client = client }
    }

    public let configuration: Configuration
    private let store: OutpostStore
    private var idle: [Int64: [Connection]] = [:]

    public init(store: OutpostStore, configuration: Configuration = .init()) {
        self.store = store
        self.configuration = configuration
    }

    /// Fetches message `uid` of `folder` in mailbox `mailboxID` if the
    /// folder still has `uidValidity`.
    public func fetch(mailboxID: Int64, folder: String, uidValidity: UInt32, uid: UInt32) async throws -> FetchedMessage {
        guard let record = try await store.mailbox(id: mailboxID) else {
            closeConnections(mailboxID: mailboxID)   // removed (perhaps by the CLI): its connections go too
            throw Failure.gone
        }
        let maxBytes = configuration.maxMessageBytes
        for attempt in 0..<2 {
            let pooled = attempt == 0 ? checkout(mailboxID) : nil
            let connection: Connection
            if let pooled {
                connection = pooled
            } else {
                let secret = try await store.mailboxSecret(mailboxID)
                let store = self.store
                connection = try await Self.onThread { () throws(IMAPError) -> Connection in
                    let client = try IMAPClient(endpoint: record.endpoint)
                    do throws(IMAPError) {
                        try client.authenticate(try MailboxCredentials(record: record, secret: secret, store: store).current())
                    } catch {
                        client.close()
                        throw error
                    }
                    return Connection(client: client)
                }
            }
            do {
                let outcome = try await Self.onThread { () throws(IMAPError) -> Outcome in
                    // EXAMINE every time: a selection cached on a pooled connection would not show a reset folder.
                    let selection = try connection.client.examine(folder)
                    guard selection.uidValidity == uidValidity else { return .folderReset }
                    return try connection.client.fetchMessage(uid: uid, maxBytes: maxBytes).map { .found($0.bytes, $0.size) } ?? .gone
                }
                checkin(mailboxID, connection)
                switch outcome {
                case .found(let bytes, let size): return FetchedMessage(bytes: bytes, size: size)
                case .folderReset: throw Failure.folderReset
                case .gone: throw Failure.gone
                }
            } catch let error as IMAPError {
                Self.discard(connection)
                if pooled != nil { continue }   // a stale pooled connection: once more with a fresh one
                throw Failure.server(error.message)
            }
        }
        throw Failure.server("the mail server did not answer")
    }

    /// Closes the idle connections of one mailbox (it was removed).
    public func closeConnections(mailboxID: Int64) {
        for connection in idle.removeValue(forKey: mailboxID) ?? [] { Self.discard(connection) }
    }

    /// Idle connections kept for `mailboxID`.
    public func idleConnectionCount(mailboxID: Int64) -> Int { idle[mailboxID]?.count ?? 0 }

    /// Closes every idle connection.
    public func closeAll() {
        for connection in idle.values.flatMap({ $0 }) { Self.discard(connection) }
        idle.removeAll()
    }

    private func checkout(_ mailboxID: Int64) -> Connection? {
        let now = Date()
        var list = idle[mailboxID] ?? []
        while let c = list.popLast() {
            if now.timeIntervalSince(c.lastUsed) < configuration.idleSeconds {
                idle[mailboxID] = list
                return c
            }
            Self.discard(c)
        }
        idle[mailboxID] = list
        return nil
    }

    private func checkin(_ mailboxID: Int64, _ connection: Connection) {
        connection.lastUsed = Date()
        var list = idle[mailboxID] ?? []
        if list.count < configuration.idleConnectionsPerMailbox {
            list.append(connection)
            idle[mailboxID] = list
        } else {
            Self.discard(connection)
        }
    }

    private static func discard(_ connection: Connection) {
        Thread {
            connection.client.logout()
            TLSStream.threadDone()
        }.start()
    }

    /// Runs blocking IMAP work on a thread of its own.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws(IMAPError) -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { () throws(IMAPError) -> T in try body() }.mapError { $0 as any Error })
                TLSStream.threadDone()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
