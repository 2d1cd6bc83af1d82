import Foundation
import MailwakeCore
import MailwakePostgres
import RelayService

/// `mailwake-relay`: pairing rendezvous, verified intake, a durable queue in
/// PostgreSQL and delivery to APNs over HTTP/2 (DESIGN.md §1).
let settingsHelp = RelaySettings.spec.helpText()

/// Loads the configuration and builds the instance.
func prepare(_ args: ParsedArguments) throws -> (RelayApp, Logger) {
    let loaded = try RelaySettings.spec.load(arguments: args)
    let configuration = try RelayConfiguration(loaded)
    let logger = Logger(service: "relay", level: configuration.logLevel)
    for warning in loaded.warnings { logger.warning(warning) }
    let metrics = MetricsRegistry()
    let database = PostgresClient(configuration: try configuration.postgresConfiguration(), logger: logger,
                                  metrics: metrics, metricsPrefix: "mailwake_relay_postgres")
    return (try RelayApp(configuration: configuration, database: database, logger: logger, metrics: metrics), logger)
}

let tool = CommandLineTool(
    name: "mailwake-relay",
    summary: "Mailwake relay: pairing rendezvous, verified intake, a durable queue and delivery to APNs over HTTP/2.",
    version: MailwakeVersion.current,
    commands: [
        .init(CommandSpec("serve", summary: "Apply migrations, then serve the public and admin listeners and deliver until SIGTERM.",
                          options: [ConfigurationSpec.configOption], discussion: settingsHelp)) { args in
            let (app, logger) = try prepare(args)
            try await app.database.waitUntilReachable(.init(total: app.configuration.databaseStartTimeout))
            let applied = try await app.migrate()
            if !applied.isEmpty { logger.info("migrations applied", ["versions": .string(applied.map(String.init).joined(separator: ","))]) }
            logger.info("relay starting", ["instance": .string(app.configuration.instanceName), "origin": .string(app.configuration.publicOrigin)])
            let group = ServiceGroup(services: app.services(), logger: logger)
            let code = await group.runReturningExitCode()
            app.shutdownClients()
            return code
        },
        .init(CommandSpec("migrate", summary: "Apply pending database migrations and exit.",
                          options: [ConfigurationSpec.configOption], discussion: settingsHelp)) { args in
            let (app, logger) = try prepare(args)
            try await app.database.waitUntilReachable(.init(total: app.configuration.databaseStartTimeout))
            let applied = try await app.migrate()
            logger.info("migrations applied", ["versions": .string(applied.map(String.init).joined(separator: ","))])
            await app.database.close()
            app.shutdownClients()
            return .success
        },
        RelaySettings.spec.settingsCommand(),
    ])
await tool.main()
