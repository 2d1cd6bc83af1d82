import MailwakeCore
import MailwakePostgres

/// Asks the worker for a claim query when another instance queues deliveries
/// (`LISTEN mailwake_relay_queue`) or the listener reconnects.
struct QueueWakeUp: Service {
    var name: String { "queue-wake-up" }
    let listener: PostgresListener
    let handoff: DeliveryHandoff
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled {
            do {
                let events = try await listener.subscribe(to: DeliveryQueue.notifyChannel)
                for await _ in events { handoff.requestClaim() }
            } catch {
                logger.warning("cannot LISTEN for queued deliveries; polling meanwhile", ["error": .string("\(error)")])
            }
            try? await Task.sleep(for: .seconds(2))
        }
    }
}
