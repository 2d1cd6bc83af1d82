public import MailwakeCore

/// One opened outpost: its configuration, store, identity and relay client, and what its commands build from them.
///
/// The composition root of the outpost, as `RelayApp` is the relay's: `mailwake-outpost` opens one
/// (`open`), asks it for the pieces a command needs (`pairing`, `notifier()`, `deliveryPass()`) or
/// runs it (`serve()`), then closes it.
public final class OutpostApp: Sendable {
    public let configuration: OutpostConfiguration
    /// The data directory (the self-signed certificate of the API lives in it).
    public let directory: DataDirectory
    public let store: OutpostStore
    public let identity: OutpostIdentity
    public let client: OutpostRelayClient
    public let logger: Logger

    /// - Parameters:
    ///   - configuration: the outpost's settings.
    ///   - directory: the data directory.
    ///   - store: the open store.
    ///   - identity: the outpost identity.
    ///   - client: the relay client (closed by `close()`).
    ///   - logger: the service logger.
    public init(configuration: OutpostConfiguration = .init(), directory: DataDirectory, store: OutpostStore, identity: OutpostIdentity,
                client: OutpostRelayClient, logger: Logger = .disabled) {
        self.configuration = configuration
        self.directory = directory
        self.store = store
        self.identity = identity
        self.client = client
        self.logger = logger
    }

    /// Opens the store of the initialized outpost in `directory` and reads its identity (commands that do not talk to the relay).
    public static func openStore(_ directory: DataDirectory) async throws -> (store: OutpostStore, identity: OutpostIdentity) {
        let store = try await OutpostStore.open(directory)
        return (store, try await store.identity())
    }

    /// Opens the initialized outpost in `directory` and a client of its relay.
    ///
    /// - Throws: `OutpostError` when the directory holds no outpost or no relay is set.
    public static func open(_ directory: DataDirectory, configuration: OutpostConfiguration = .init(),
                            logger: Logger = .disabled) async throws -> OutpostApp {
        let (store, identity) = try await openStore(directory)
        return try await connect(directory, store: store, identity: identity, configuration: configuration, logger: logger)
    }

    /// An outpost whose store is already open, with a new client of its relay.
    public static func connect(_ directory: DataDirectory, store: OutpostStore, identity: OutpostIdentity,
                               configuration: OutpostConfiguration = .init(), logger: Logger = .disabled) async throws -> OutpostApp {
        let client = try OutpostRelayClient(relay: try await store.relay(), identity: identity)
        return OutpostApp(configuration: configuration, directory: directory, store: store, identity: identity, client: client,
                          logger: logger)
    }

    /// Pairing devices through the relay, and ending pairings.
    public var pairing: OutpostPairing { OutpostPairing(store: store, client: client, identity: identity) }

    /// Seals notifications for the paired devices; `doorbell` wakes the delivery worker, `metrics` counts them.
    public func notifier(doorbell: Doorbell? = nil, metrics: OutpostMetrics = OutpostMetrics()) -> OutpostNotifier {
        OutpostNotifier(store: store, identity: identity, relay: client.relay, maxAge: configuration.delivery.maxAge, doorbell: doorbell,
                        liveActivityLifetime: configuration.delivery.liveActivityLifetime, metrics: metrics)
    }

    /// Hands stored envelopes to the relay, one pass at a time.
    public func deliveryPass(metrics: OutpostMetrics = OutpostMetrics()) -> DeliveryPass {
        DeliveryPass(store: store, client: client, metrics: metrics)
    }

    /// What `serve` runs: delivery, mail watching, heartbeats and the listeners.
    ///
    /// - Throws: `ConfigurationError` naming the key of a bad origin or TLS setting.
    public func daemon() throws -> OutpostDaemon {
        try OutpostDaemon(app: self)
    }

    /// Runs the daemon until SIGTERM or SIGINT, then closes what its services leave open.
    public func serve() async throws -> ExitCode {
        logger.info("outpost starting", ["outpost_id": .string(identity.id), "relay": .string(client.relay.url)])
        let daemon = try daemon()
        let code = await ServiceGroup(services: daemon.services, logger: logger).runReturningExitCode()
        await daemon.shutdown()
        return code
    }

    /// Closes the relay client and the store.
    public func close() async {
        client.shutdown()
        await store.close()
    }
}
