public import MailwakeCore
public import MailwakeHTTPServer

/// What `mailwake-outpost serve` runs, built by `OutpostApp.daemon()`: delivery,
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

    /// - Parameter app: the opened outpost, with its configuration.
    /// - Throws: `ConfigurationError` naming the key of a bad origin or TLS setting.
    init(app: OutpostApp) throws {
        let configuration = app.configuration
        let (store, logger) = (app.store, app.logger)
        let metrics = OutpostMetrics()
        self.metrics = metrics
        let doorbell = Doorbell()
        let channelSender = ChannelSender()
        self.channelSender = channelSender
        let notifier = app.notifier(doorbell: doorbell, metrics: metrics)
        let worker = OutpostDeliveryWorker(pass: app.deliveryPass(metrics: metrics), logger: logger,
                                           historyDays: configuration.delivery.historyDays, doorbell: doorbell,
                                           channels: ChannelDeliveryPass(store: store, sender: channelSender, logger: logger,
                                                                         metrics: metrics),
                                           activities: notifier.liveActivities)
        let reconfigured = Doorbell()
        let watch = MailWatchService(store: store, notifier: notifier, timing: configuration.watch, logger: logger,
                                     reconfigured: reconfigured, metrics: metrics)
        let heartbeat = HeartbeatService(store: store, client: app.client, outpostID: app.identity.id,
                                         interval: configuration.delivery.heartbeatInterval, logger: logger)
        var services: [any Service] = [worker, watch, heartbeat]
        var tls: OutpostTLS?
        func resolvedTLS(origin: String) throws -> OutpostTLS {
            if let tls { return tls }
            let resolved = try OutpostTLS.resolve(directory: app.directory, api: configuration.api, origin: origin)
            tls = resolved
            return resolved
        }
        var api: HTTPServer?
        var fetcher: MessageFetcher?
        if let listen = configuration.api.listen {
            let origin = try OutpostTLS.origin(configuration.api)
            let certificate = try resolvedTLS(origin: origin)
            var fetching = MessageFetcher.Configuration()
            fetching.maxMessageBytes = configuration.api.bodyMaxBytes
            let messages = MessageFetcher(store: store, configuration: fetching)
            fetcher = messages
            let routes = OutpostAPI(store: store, identity: app.identity, fetcher: messages, origin: origin, reconfigured: reconfigured,
                                    metrics: metrics)
            let listener = OutpostAPI.listenerConfiguration(listen: listen, tls: certificate,
                                                            perIPConnectionLimit: configuration.api.perIPConnectionLimit)
            let server = HTTPServer(configuration: listener, router: routes.router(), logger: logger, metrics: metrics.registry)
            api = server
            services.append(server)
            logger.info("HTTPS API", ["listen": .string(listen.description), "origin": .string(origin),
                                      "self_signed": .bool(certificate.selfSigned)])
        }
        var admin: HTTPServer?
        if let listen = configuration.admin.listen {
            // Off loopback the admin listener serves HTTPS with the API's certificate.
            let certificate = HTTPServer.Configuration.isLoopback(listen.host) ? nil
                : try resolvedTLS(origin: try OutpostTLS.origin(configuration.api))
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
