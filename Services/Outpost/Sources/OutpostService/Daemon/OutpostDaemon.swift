public import MailwakeCore
public import MailwakeHTTPServer

/// What `mailwake-outpost serve` runs, built from its settings: delivery,
/// mail watching, the HTTPS API (`LISTEN`) and the admin listener
/// (`ADMIN_LISTEN`), sharing one set of metrics.
public struct OutpostDaemon: Sendable {
    /// In start order, for a `ServiceGroup` (stopped in reverse).
    public let services: [any Service]
    public let metrics: OutpostMetrics
    /// The HTTPS API listener; nil when `LISTEN` is empty.
    public let api: HTTPServer?
    /// The admin listener; nil when `ADMIN_LISTEN` is empty.
    public let admin: HTTPServer?
    let fetcher: MessageFetcher?
    let channelSender: ChannelSender

    /// - Parameters:
    ///   - configuration: the loaded `OutpostSettings`.
    ///   - directory: the data directory (the self-signed certificate lives in it).
    ///   - store: the open store.
    ///   - identity: the outpost identity.
    ///   - client: the relay client.
    ///   - logger: the service logger.
    /// - Throws: `ConfigurationError` naming the key of a bad address or origin.
    public init(configuration: ServiceConfiguration, directory: DataDirectory, store: OutpostStore, identity: OutpostIdentity,
                client: OutpostRelayClient, logger: Logger) throws {
        let metrics = OutpostMetrics()
        self.metrics = metrics
        let doorbell = Doorbell()
        let channelSender = ChannelSender()
        self.channelSender = channelSender
        let notifier = OutpostNotifier(store: store, identity: identity, relay: client.relay,
                                       maxAge: Int64(configuration[OutpostSettings.deliveryMaxAge].components.seconds), doorbell: doorbell,
                                       liveActivityLifetime: configuration[OutpostSettings.liveActivityLifetime].components.seconds, metrics: metrics)
        let worker = OutpostDeliveryWorker(pass: DeliveryPass(store: store, client: client, metrics: metrics), logger: logger,
                                           historyDays: configuration[OutpostSettings.historyDays], doorbell: doorbell,
                                           channels: ChannelDeliveryPass(store: store, sender: channelSender, logger: logger, metrics: metrics),
                                           activities: notifier)
        let reconfigured = Doorbell()
        let watch = MailWatchService(store: store, notifier: notifier, timing: OutpostSettings.watchTiming(configuration), logger: logger,
                                     reconfigured: reconfigured, metrics: metrics)
        let heartbeat = HeartbeatService(store: store, client: client, outpostID: identity.id,
                                         interval: configuration[OutpostSettings.heartbeatInterval], logger: logger)
        var services: [any Service] = [worker, watch, heartbeat]
        var tls: OutpostTLS?
        func resolvedTLS(origin: String) throws -> OutpostTLS {
            if let tls { return tls }
            let resolved = try OutpostTLS.resolve(directory: directory, configuration: configuration, origin: origin)
            tls = resolved
            return resolved
        }
        var api: HTTPServer?
        var fetcher: MessageFetcher?
        if !configuration[OutpostSettings.listen].isEmpty {
            let listen = try ListenAddress.parse(configuration[OutpostSettings.listen], key: configuration.prefix + OutpostSettings.listen.name)
            let origin = try OutpostTLS.origin(configuration)
            let certificate = try resolvedTLS(origin: origin)
            var fetching = MessageFetcher.Configuration()
            fetching.maxMessageBytes = configuration[OutpostSettings.bodyMaxBytes]
            let messages = MessageFetcher(store: store, configuration: fetching)
            fetcher = messages
            let routes = OutpostAPI(store: store, identity: identity, fetcher: messages, origin: origin, reconfigured: reconfigured, metrics: metrics)
            let server = HTTPServer(configuration: OutpostAPI.listenerConfiguration(listen: listen, tls: certificate,
                                                                                  perIPConnectionLimit: configuration[OutpostSettings.perIPConnectionLimit]), router: routes.router(), logger: logger,
                                    metrics: metrics.registry)
            api = server
            services.append(server)
            logger.info("HTTPS API", ["listen": .string(listen.description), "origin": .string(origin), "self_signed": .bool(certificate.selfSigned)])
        }
        var admin: HTTPServer?
        if !configuration[OutpostSettings.adminListen].isEmpty {
            let listen = try ListenAddress.parse(configuration[OutpostSettings.adminListen], key: configuration.prefix + OutpostSettings.adminListen.name)
            // Off loopback the admin listener serves HTTPS with the API's certificate.
            let certificate = HTTPServer.Configuration.isLoopback(listen.host) ? nil : try resolvedTLS(origin: try OutpostTLS.origin(configuration))
            let server = OutpostAdmin.server(listen: listen, tls: certificate, metrics: metrics, store: store, api: api, logger: logger)
            admin = server
            services.append(server)
            logger.info("admin listener", ["listen": .string(listen.description), "tls": .bool(certificate != nil)])
        }
        self.services = services
        self.api = api
        self.admin = admin
        self.fetcher = fetcher
    }

    /// Closes what the services leave open, after they ended: mailbox connections of body reads, the channel client.
    public func shutdown() async {
        await fetcher?.closeAll()
        channelSender.shutdown()
    }
}
