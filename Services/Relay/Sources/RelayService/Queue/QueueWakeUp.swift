import MailwakeCore
import MailwakePostgres

/// Rings the worker's doorbell when another instance queues deliveries
/// (`LISTEN mailwake_relay_queue`) or the listener reconnects.
struct QueueWakeUp: Service {
    var name: String { "queue-wake-up" }
    let listener: PostgresListener
    let doorbell: Doorbell
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled {
            do {
                let events = try await listener.subscribe(to: DeliveryQueue.notifyChannel)
                for await _ in events { doorbell.ring() }
            } catch {
                logger.warning("cannot LISTEN for queued deliveries; polling meanwhile", ["error": .string("\(error)")])
            }
            try? await Task.sleep(for: .seconds(2))
        }
    }
}
