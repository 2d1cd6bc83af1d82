public import MailwakeCore

/// The daemon's delivery service: runs `DeliveryPass` rounds until
/// cancelled: at once while work remains or when the doorbell rings (a
/// notification was just stored), else every second (retries, status checks).
public struct OutpostDeliveryWorker: Service {
    public var name: String { "delivery" }
    let pass: DeliveryPass
    let logger: Logger
    /// Days of history kept; older entries (and their finished deliveries) are deleted hourly.
    let historyDays: Int
    let doorbell: Doorbell
    /// Deliveries through Bark, Pushover and webhooks, in the same rounds.
    let channels: ChannelDeliveryPass?
    /// Ends Live Activities whose lifetime is over, each round.
    let activities: LiveActivityLifecycle?

    public init(pass: DeliveryPass, logger: Logger, historyDays: Int = 30, doorbell: Doorbell = Doorbell(),
                channels: ChannelDeliveryPass? = nil, activities: LiveActivityLifecycle? = nil) {
        self.activities = activities
        self.doorbell = doorbell
        self.channels = channels
        self.pass = pass
        self.logger = logger
        self.historyDays = historyDays
    }

    public func run() async throws {
        var lastPrune = ContinuousClock.now - .seconds(3600)
        while !Task.isCancelled {
            if ContinuousClock.now - lastPrune >= .seconds(3600) {
                lastPrune = ContinuousClock.now
                if let n = try? await pass.store.clearHistory(olderThanDays: historyDays), n > 0 {
                    logger.info("history pruned", ["entries": .int(n), "days": .int(historyDays)])
                }
            }
            var handled = 0
            if let activities {
                do { try await activities.endExpired() } catch {
                    logger.warning("cannot end expired Live Activities; retrying", ["error": .string("\(error)")])
                }
            }
            do {
                handled = try await pass.run()
            } catch {
                logger.warning("delivery round failed; retrying", ["error": .string("\(error)")])
            }
            if let channels {
                do {
                    handled += try await channels.run()
                } catch {
                    logger.warning("channel delivery round failed; retrying", ["error": .string("\(error)")])
                }
            }
            if handled < 100 { await doorbell.wait(timeout: .seconds(1)) }
        }
    }
}
