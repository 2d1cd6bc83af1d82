import Foundation
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakeBenchKit
import MailwakeProtocol

/// The simulated devices' side of receipts (PROTOCOL §13): they learn of each
/// push by polling the APNs simulator and post a receipt at once, one request
/// per device per poll, with `shown_at` = when they learned of it.
final class ReceiptPoster: Sendable {
    let bench: RelayBench
    /// Event id → the pairing it was sealed for (only the fixed-rate phase's envelopes).
    let pairingOf: [String: Int]
    let posted = Locked(0)
    let requests = Locked(0)
    let failed = Locked([String: Int]())
    let stopped = Locked(false)

    init(bench: RelayBench, envelopes: [Envelope], pairingIndex: [String: Int]) {
        self.bench = bench
        var map: [String: Int] = [:]
        for e in envelopes { map[e.context.eventID] = pairingIndex[e.context.pairingID] }
        pairingOf = map
    }

    func stop() { stopped.withLock { $0 = true } }

    /// Polls and posts until every phase envelope was receipted or `stop()` was called with nothing left to read.
    func run() async throws {
        var cursor: Int64 = 0
        var done = 0
        while done < pairingOf.count {
            let page = try await bench.simulatorPage(since: cursor)
            let list = page.deliveries
            cursor = page.next
            let shownAt = Int64(BenchSystem.nowMS())
            var byDevice: [Int: [String]] = [:]
            for d in list where d.status == 200 {
                guard let id = d.apnsID, let p = pairingOf[id] else { continue }
                byDevice[p, default: []].append(id)
            }
            done += byDevice.values.reduce(0) { $0 + $1.count }
            try await withThrowingTaskGroup(of: Void.self) { group in
                var running = 0
                for (p, events) in byDevice {
                    if running >= 32 { try await group.next(); running -= 1 }
                    running += 1
                    group.addTask { [self] in await post(pairing: bench.pairings[p], events: events, shownAt: shownAt) }
                }
                try await group.waitForAll()
            }
            if stopped.withLock({ $0 }) && list.isEmpty { return }
            if list.count < 10000 { try await Task.sleep(for: .milliseconds(50)) }
        }
    }

    /// One device's receipt request, 100 entries at most.
    func post(pairing: BenchPairing, events: [String], shownAt: Int64) async {
        for start in stride(from: 0, to: events.count, by: 100) {
            let chunk = events[start..<min(start + 100, events.count)]
            let body = Array(#"{"receipts":["#.utf8)
                + chunk.map { Array(#"{"pairing_id":"\#(pairing.pairingID)","event_id":"\#($0)","shown_at":\#(shownAt)}"#.utf8) }
                    .joined(separator: Array(",".utf8))
                + Array("]}".utf8)
            let path = "/v1/devices/\(pairing.deviceID)/receipts"
            do {
                let r = try await SignedHTTPClient(http: bench.client, origin: BenchStack.origin, key: pairing.deviceSigning,
                                                   baseURL: bench.relayURL)
                    .send(.post, path, body: body)
                requests.withLock { $0 += 1 }
                if r.status == .ok { posted.withLock { $0 += chunk.count } } else { failed.withLock { $0[String(r.status.code),
                    default: 0] += 1 } }
            } catch {
                failed.withLock { $0[String(describing: (error as? HTTPClientError)?.code ?? .other), default: 0] += 1 }
            }
        }
    }
}
