import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes
public import MailwakeProtocol
import Synchronization

/// Submits envelopes as outposts do under trouble: each one again (same
/// bytes) until it is answered 202 or `deadline` passes, and remembers which
/// were acknowledged, so a test can check that none of those is lost.
public final class EnvelopeLoad: Sendable {
    private let acknowledged = Mutex<Set<String>>([])
    private let log = Mutex<[EnvelopeLoadAnswer]>([])
    private let target: Mutex<String>
    private let client: HTTPClient

    /// - Parameter url: the relay to submit to (changeable with `retarget`).
    public init(url: String) throws {
        target = Mutex(url)
        var c = HTTPClient.Configuration()
        c.httpVersion = .http1_1
        c.connectTimeout = .seconds(2)
        c.totalTimeout = .seconds(10)
        client = try HTTPClient(configuration: c)
    }

    deinit { client.shutdown() }

    /// Sends later submissions to another relay (a restarted process).
    public func retarget(_ url: String) { target.withLock { $0 = url } }

    /// Event ids answered 202.
    public var acknowledgedEvents: Set<String> { acknowledged.withLock { $0 } }

    /// Every submission so far, in the order they were answered.
    public var answers: [EnvelopeLoadAnswer] { log.withLock { $0 } }

    /// Submits all `envelopes`, `concurrency` at a time.
    public func run(_ envelopes: [Envelope], concurrency: Int, deadline: ContinuousClock.Instant) async {
        let next = NextIndex()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while true {
                        let index = next.take()
                        guard index < envelopes.count else { return }
                        await self.submitUntilAcknowledged(envelopes[index], deadline: deadline)
                    }
                }
            }
        }
    }

    private func submitUntilAcknowledged(_ envelope: Envelope, deadline: ContinuousClock.Instant) async {
        let body = envelope.jsonBytes
        while ContinuousClock.now < deadline {
            let url = target.withLock { $0 } + "/v1/envelopes"
            let sentAt = ContinuousClock.now
            let response = try? await client.execute(.init(method: .post, url: url, headers: ["Content-Type": "application/json"],
                                                           body: body))
            let answer = EnvelopeLoadAnswer(eventID: envelope.context.eventID, sentAt: sentAt, answeredAt: .now,
                                            status: response.map { Int($0.status.code) })
            log.withLock { $0.append(answer) }
            if let response {
                if response.status == .accepted {
                    acknowledged.withLock { _ = $0.insert(envelope.context.eventID) }
                    return
                }
                if response.status.code < 500 && response.status != .tooManyRequests { return }  // refused for good
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// Hands out 0, 1, 2, … to concurrent workers.
private final class NextIndex: Sendable {
    private let value = Mutex(0)
    func take() -> Int { value.withLock { i in defer { i += 1 }; return i } }
}
