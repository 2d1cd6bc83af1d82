import Foundation
import MailwakeHTTPClient
public import MailwakeProtocol
import Synchronization

/// Sends channel requests: one HTTP client per channel (its CA file, and
/// `publicAddressesOnly` unless the channel allows private addresses, and
/// never a proxy from the environment).
public final class ChannelSender: Sendable {
    private let clients = Mutex<[Int64: HTTPClient]>([:])

    public init() {}

    /// Sends `content` through `channel` once and reads the answer.
    public func send(_ content: NotificationContent, eventID: String, channel: ChannelRecord, secrets: ChannelSecrets,
                     now: Int64) async -> ChannelOutcome {
        await deliver(content, eventID: eventID, channel: channel, secrets: secrets, now: now).outcome
    }

    /// `send`, with Pushover's quota when the answer carried it.
    public func deliver(_ content: NotificationContent, eventID: String, channel: ChannelRecord, secrets: ChannelSecrets,
                        now: Int64) async -> (outcome: ChannelOutcome, quota: PushoverQuota?) {
        let request: ChannelRequest
        do {
            request = try ChannelRequest.make(content, eventID: eventID, channel: channel, secrets: secrets, now: now)
        } catch {
            return (.failed("\(error)"), nil)
        }
        do {
            let client = try client(for: channel)
            let response = try await client.execute(.init(method: request.method, url: request.url, headers: request.headers,
                                                          body: request.body))
            return (ChannelOutcome.of(response, kind: channel.kind), channel.kind == .pushover ? PushoverQuota(response.headers) : nil)
        } catch let error as HTTPClientError where error.code == .refusedAddress || error.code == .invalidRequest || error.code == .tls {
            return (.failed(error.message), nil)
        } catch {
            return (.retry(after: 0, reason: "\(error)"), nil)
        }
    }

    public func shutdown() {
        let all = clients.withLock { c in defer { c = [:] }; return Array(c.values) }
        all.forEach { $0.shutdown() }
    }

    private func client(for channel: ChannelRecord) throws -> HTTPClient {
        if let existing = clients.withLock({ $0[channel.id] }) { return existing }
        var configuration = HTTPClient.Configuration()
        configuration.name = "channel-\(channel.kind.rawValue)"
        configuration.publicAddressesOnly = !channel.allowPrivate
        // Straight to the channel's host, LAN ones included: a proxy from the
        // environment would receive every notification (and defeat the address check).
        configuration.usesEnvironmentProxy = false
        configuration.caFile = channel.options.caFile
        configuration.totalTimeout = .seconds(20)
        configuration.maxResponseBytes = 64 << 10
        configuration.maxConnectionsPerHost = 2
        let client = try HTTPClient(configuration: configuration)
        return clients.withLock { c in
            if let raced = c[channel.id] {
                client.shutdown()
                return raced
            }
            c[channel.id] = client
            return client
        }
    }
}
