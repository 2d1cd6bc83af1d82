public import MailwakeCore

/// The daemon's delivery service: runs `DeliveryPass` rounds until
/// cancelled, every second when idle and at once while work remains.
public struct OutpostDeliveryWorker: Service {
    public var name: String { "delivery" }
    let pass: DeliveryPass
    let logger: Logger

    public init(pass: DeliveryPass, logger: Logger) {
        self.pass = pass
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isCancelled {
            var handled = 0
            do {
                handled = try await pass.run()
            } catch {
                logger.warning("delivery round failed; retrying", ["error": .string("\(error)")])
            }
            if handled < 100 { try? await Task.sleep(for: .seconds(1)) }
        }
    }
}
