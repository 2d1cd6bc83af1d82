import MailwakeCore
import MailwakePostgres
import MailwakeServiceSupport
import RelayService

/// `mailwake-relay`: pairing rendezvous, verified intake, a durable queue in
/// PostgreSQL and delivery to APNs over HTTP/2 (DESIGN.md §1).
let tool = CommandLineTool(
    name: "mailwake-relay",
    summary: "Mailwake relay: pairing rendezvous, verified intake, a durable queue and delivery to APNs over HTTP/2.",
    version: MailwakeVersion.current,
    commands: DatabaseServiceCommands.commands(
        service: "relay", settings: RelaySettings.spec,
        serveSummary: "Apply migrations, then serve the public and admin listeners and deliver until SIGTERM."
    ) { args in
        let loaded = try RelaySettings.spec.load(arguments: args)
        let configuration = try RelayConfiguration(loaded)
        let logger = Logger(service: "relay", level: configuration.logLevel)
        for warning in loaded.warnings { logger.warning(warning) }
        let metrics = MetricsRegistry()
        let database = PostgresClient(configuration: try configuration.postgresConfiguration(), logger: logger,
                                      metrics: metrics, metricsPrefix: "mailwake_relay_postgres")
        return (try RelayApp(configuration: configuration, database: database, logger: logger, metrics: metrics), logger)
    })
await tool.main()
