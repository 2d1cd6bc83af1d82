import Foundation
public import MailwakeCore

/// Runs an `APNsSimulator` behind an `H2Server` until cancelled (the
/// `ServiceGroup` turns SIGTERM into cancellation), then stops the server.
public struct SimulatorService: Service {
    public let name = "apns-simulator"
    public let simulator: APNsSimulator
    private let logger: Logger
    private let onListening: @Sendable (UInt16) -> Void

    /// - Parameter onListening: called once with the bound port, before any request is served.
    public init(simulator: APNsSimulator, logger: Logger, onListening: @escaping @Sendable (UInt16) -> Void) {
        self.simulator = simulator
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        let c = simulator.configuration
        let simulator = self.simulator
        let server = try H2Server(host: c.host, port: c.port, certificateFile: c.certificateFile, privateKeyFile: c.privateKeyFile,
                                  maxConcurrentStreams: c.settings.maxConcurrentStreams, maxBodyBytes: c.maxBodyBytes,
                                  requireALPN: c.strict, logger: logger) {
            simulator.handle($0)
        }
        simulator.attach(server)
        onListening(server.port)
        logger.info("APNs simulator listening", [
            "host": .string(c.host), "port": .int(server.port), "topic": .string(c.topic),
            "max_concurrent_streams": .int(c.settings.maxConcurrentStreams), "record": .string(c.recordPath ?? "-"),
        ])
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        simulator.detach()
        // Joining the connection threads takes a moment: not on the cooperative pool.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                server.stop()
                done.resume()
            }.start()
        }
        logger.info("APNs simulator stopped", ["requests": .int(Int(simulator.deliveries.nextSeq) - 1)])
    }
}
