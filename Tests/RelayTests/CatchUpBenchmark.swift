import Foundation
import MailwakeCrypto
import MailwakePostgres
import MailwakeProtocol
@testable import RelayService
import StackSupport
import TestSupport
import Testing

/// Catch-up figures for issue 18 (never asserted): the time a device takes to
/// fetch 1,000 missed envelopes, and the relay's bytes per kept envelope.
/// `MAILWAKE_CATCHUP_BENCH=1 swift test --filter CatchUpBenchmark`.
@Suite("Relay: catch-up benchmark", .serialized, .awaitedCleanup,
       .enabled(if: ProcessInfo.processInfo.environment["MAILWAKE_CATCHUP_BENCH"] != nil))
struct CatchUpBenchmark {
    static func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }

    @Test func fetchingAThousandMissedEnvelopes() async throws {
        let stack = try await RelayStack.start(adjust: { $0.rateLimit = 100_000; $0.rateBurst = 100_000 })
        let outpost = try SimulatedOutpost()
        let device = try await stack.registeredDevice()
        let pairing = try await stack.pair(outpost, device)
        let n = 1000
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in stride(from: worker, to: n, by: 8) {
                        let e = try outpost.envelope(for: device, pairingID: pairing,
                                                     content: SimulatedOutpost.sampleContent(subject: "Missed mail \(i)"))
                        let r = try await stack.submit(e)
                        guard r.status == .accepted else { throw TestHarnessError("submit answered \(r.status.code): \(r.text)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let opener = EnvelopeOpener(agreementKey: device.agreement, outpostKey: outpost.publicKey, audience: RelayInstance.origin,
                                    pairingID: pairing)
        var fetchMS: [Double] = []
        var openMS: [Double] = []
        var responseBytes = 0
        for _ in 0..<3 {
            var after: String?
            var envelopes: [Envelope] = []
            responseBytes = 0
            let started = ContinuousClock.now
            while true {
                let path = "/v1/devices/\(device.id)/envelopes?" + (after.map { "after=\($0)&" } ?? "") + "limit=100"
                let r = try await stack.send(.get, path, signer: device.signing)
                responseBytes += r.body.count
                let object = stack.json(r)
                let page = try (object["envelopes"] as? [Any]
                    ?? []).map { try Envelope.decode(Array(try JSONSerialization.data(withJSONObject: $0))) }
                envelopes += page
                guard object["more"] as? Bool == true, let last = page.last else { break }
                after = last.context.eventID
            }
            fetchMS.append(Self.ms(ContinuousClock.now - started))
            let opening = ContinuousClock.now
            for e in envelopes { _ = try NotificationContent.decode(try opener.open(e)) }
            openMS.append(Self.ms(ContinuousClock.now - opening))
            #expect(envelopes.count == n)
        }
        let (bytes, rows, tableBytes) = try await stack.relay.app.database.query("""
            SELECT pg_total_relation_size('catchup_envelopes'), count(*), pg_relation_size('catchup_envelopes') FROM catchup_envelopes
            """).single().decode((Int64, Int64, Int64).self)
        let envelopeBytes = try await stack.relay.app.database.query("""
                                                                     SELECT avg(octet_length(envelope))::int8 FROM \
                                                                     catchup_envelopes
                                                                     """).single().decode(Int64.self, at: 0)
        print(#"{"bench":"catch-up","envelopes":\#(rows),"fetch_ms_runs":\#(fetchMS.map { (($0 * 10).rounded() / 10) }),"# +
              #""open_ms_runs":\#(openMS.map { (($0 * 10).rounded() / 10) }),"response_bytes":\#(responseBytes),"# +
              #""envelope_bytes_avg":\#(envelopeBytes),"heap_bytes_per_envelope":\#(tableBytes / max(rows, 1)),"# +
              #""total_bytes_per_envelope":\#(bytes / max(rows, 1)),"pg_total_relation_size":\#(bytes)}"#)
    }
}
