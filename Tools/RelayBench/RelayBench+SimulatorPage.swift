import Foundation
import MailwakeBenchKit

extension RelayBench {
    /// What the bench reads of a simulator page (`GET /_sim/deliveries`): decoded into these few fields only, since
    /// building the whole page as Foundation objects (every payload a string) cost a quarter of the bench's CPU.
    struct SimulatorPage: Decodable {
        struct Delivery: Decodable {
            let apnsID: String?
            let status: Int
            let receivedAtMS: Int64
            enum CodingKeys: String, CodingKey {
                case apnsID = "apns_id"
                case status
                case receivedAtMS = "received_at_ms"
            }
        }

        let deliveries: [Delivery]
        /// The cursor for the next page.
        let next: Int64
    }

    /// The simulator's deliveries after `cursor`, at most 10,000.
    func simulatorPage(since cursor: Int64) async throws -> SimulatorPage {
        let r = try await simulatorClient.execute(.init(url: simulatorURL + "/_sim/deliveries?since=\(cursor)&limit=10000"))
        do { return try JSONDecoder().decode(SimulatorPage.self, from: Data(r.body)) } catch {
            throw BenchError("unreadable simulator answer: \(error)")
        }
    }
}
