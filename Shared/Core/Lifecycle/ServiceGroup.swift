import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a process's services together and shuts them down in order.
///
/// `run()` starts every service in its own task, then waits for one of:
/// a signal from `configuration.signals` (SIGTERM, SIGINT), a call to
/// `triggerGracefulShutdown()`, cancellation of the task running `run()`, or
/// a service ending. A service ending on its own before shutdown is a failure
/// (services are long-lived), whether it threw or returned.
///
/// Shutdown cancels the services still running in reverse order of
/// registration (the last started is the first stopped: register the
/// database before the HTTP listener that uses it), waiting for each up to
/// `gracePeriod`. A service still running after its grace period is abandoned
/// (left to die with the process) and logged as an error. A second signal
/// abandons all services still stopping.
///
/// `run()` returns when every service stopped cleanly (returned or threw
/// `CancellationError` after being cancelled) and throws `ServiceGroupError`
/// otherwise, so `main` exits 0 or 1; `runReturningExitCode()` does that mapping.
///
/// Signals are received with Dispatch signal sources; their default action is
/// set to ignore first, so the process is not killed before or between the
/// sources. That stays so after `run()` returns: `main` should exit then.
public final class ServiceGroup: Sendable {
    enum Event: Sendable {
        case shutdown(reason: String, bySignal: Bool)
        case ended(index: Int, error: (any Error)?)
        case graceExpired(index: Int)
    }

    private let services: [any Service]
    private let configuration: Configuration
    private let logger: Logger
    private let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let started = Atomic<Bool>(false)

    /// - Parameters:
    ///   - services: started in this order, stopped in the reverse order.
    ///   - logger: every start, stop, failure and timeout is logged here.
    public init(services: [any Service], configuration: Configuration = Configuration(), logger: Logger) {
        self.services = services
        self.configuration = configuration
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
    }

    /// Starts a graceful shutdown, as SIGTERM does. Safe from any thread, any
    /// number of times, also before `run()` (which then stops right away).
    public func triggerGracefulShutdown() {
        continuation.yield(.shutdown(reason: "shutdown requested", bySignal: false))
    }

    /// Runs `run()` and maps the outcome to an exit code: `.success` after a
    /// clean shutdown, `.failure` otherwise.
    public func runReturningExitCode() async -> ExitCode {
        do {
            try await run()
            return .success
        } catch {
            return .failure
        }
    }

    /// Runs the services until shutdown; see the type's documentation. Call once.
    public func run() async throws(ServiceGroupError) {
        precondition(!started.exchange(true, ordering: .acquiringAndReleasing), "a ServiceGroup runs once")
        defer { continuation.finish() }
        let sources = installSignalSources()
        defer { for source in sources { source.cancel() } }

        let continuation = self.continuation
        var tasks: [Task<Void, Never>] = []
        for (index, service) in services.enumerated() {
            logger.info("starting service", ["component": .string(service.name)])
            tasks.append(Task {
                do {
                    try await service.run()
                    continuation.yield(.ended(index: index, error: nil))
                } catch {
                    continuation.yield(.ended(index: index, error: error))
                }
            })
        }
        // The supervisor runs in a task of its own: an AsyncStream's iterator
        // ends at once in a cancelled task, so supervising in the caller's task
        // would stop waiting for the services when that task is cancelled.
        let supervisor = Task { await supervise(tasks) }
        let outcome = await withTaskCancellationHandler {
            await supervisor.value
        } onCancel: {
            continuation.yield(.shutdown(reason: "the task running the service group was cancelled", bySignal: false))
        }
        if outcome.failures.isEmpty, outcome.abandoned.isEmpty {
            logger.notice("all services stopped")
            return
        }
        let error = ServiceGroupError(failures: outcome.failures, abandoned: outcome.abandoned)
        logger.error("service group stopped with failures", [
            "failed": .string(outcome.failures.map(\.service).joined(separator: ",")),
            "abandoned": .string(outcome.abandoned.joined(separator: ",")),
        ])
        throw error
    }

    private func supervise(_ tasks: [Task<Void, Never>]) async -> (failures: [ServiceGroupError.Failure], abandoned: [String]) {
        var failures: [ServiceGroupError.Failure] = []
        var abandoned: [String] = []
        var running = Set(services.indices)
        var cancelled = Set<Int>()
        guard !services.isEmpty else { return ([], []) }
        var iterator = events.makeAsyncIterator()

        // Until the first reason to stop.
        waiting: while let event = await iterator.next() {
            switch event {
            case .shutdown(let reason, _):
                logger.notice("shutting down", ["reason": .string(reason)])
                break waiting
            case .ended(let index, let error):
                running.remove(index)
                let name = services[index].name
                let failure = error ?? EndedEarly()
                failures.append(.init(service: name, error: failure))
                logger.error(error == nil ? "service returned before shutdown; shutting down" : "service failed; shutting down", [
                    "component": .string(name), "error": .string(String(describing: failure)),
                ])
                break waiting
            case .graceExpired:
                continue
            }
        }

        // Stop the others, last registered first.
        var hurry = false
        let graceSeconds =
            Double(configuration.gracePeriod.components.seconds) + Double(configuration.gracePeriod.components.attoseconds) / 1e18
        for index in services.indices.reversed() where running.contains(index) {
            let name = services[index].name
            tasks[index].cancel()
            cancelled.insert(index)
            if hurry {
                abandoned.append(name)
                logger.error("abandoning service", ["component": .string(name)])
                continue
            }
            logger.info("stopping service", ["component": .string(name)])
            let grace = configuration.gracePeriod
            let continuation = self.continuation
            let timer = Task {
                try? await Task.sleep(for: grace)
                if !Task.isCancelled { continuation.yield(.graceExpired(index: index)) }
            }
            stopping: while let event = await iterator.next() {
                switch event {
                case .ended(let other, let error):
                    running.remove(other)
                    let otherName = services[other].name
                    if let error, !(error is CancellationError) {
                        failures.append(.init(service: otherName, error: error))
                        logger.error("service failed while stopping",
                                     ["component": .string(otherName), "error": .string(String(describing: error))])
                    } else {
                        logger.info(cancelled.contains(other) ? "service stopped" : "service ended during shutdown",
                                    ["component": .string(otherName)])
                    }
                    if other == index { break stopping }
                case .graceExpired(let expired) where expired == index:
                    running.remove(index)
                    abandoned.append(name)
                    logger.error("service did not stop within the grace period; abandoning it", [
                        "component": .string(name), "grace_seconds": .double(graceSeconds),
                    ])
                    break stopping
                case .graceExpired:
                    continue
                case .shutdown(let reason, let bySignal):
                    guard bySignal else { continue }
                    logger.warning("second signal: abandoning the services still stopping", ["reason": .string(reason)])
                    running.remove(index)
                    abandoned.append(name)
                    hurry = true
                    break stopping
                }
            }
            timer.cancel()
        }
        return (failures, abandoned)
    }

    private func installSignalSources() -> [any DispatchSourceSignal] {
        guard !configuration.signals.isEmpty else { return [] }
        let queue = DispatchQueue(label: "mailwake.service-group.signals")
        let continuation = self.continuation
        return configuration.signals.map { number in
            // Ignore the default action (termination) first, then listen.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            let name = Self.signalName(number)
            source.setEventHandler {
                continuation.yield(.shutdown(reason: "received \(name)", bySignal: true))
            }
            source.resume()
            return source
        }
    }

    static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        case SIGQUIT: "SIGQUIT"
        default: "signal \(number)"
        }
    }

    /// A service returned although nobody asked it to stop.
    struct EndedEarly: Error, CustomStringConvertible {
        var description: String { "returned before shutdown was requested" }
    }
}
