import AccountsService
import Foundation
import MailwakeCore
import MailwakePostgres

/// `mailwake-accounts`: devices, keys, APNs tokens, sessions, App Store
/// purchases and entitlements, outpost identities (DESIGN.md §1).
let settingsHelp = AccountsSettings.spec.helpText()

/// Loads the configuration, a logger and the database pool.
func prepare(_ args: ParsedArguments) throws -> (AccountsConfiguration, Logger, PostgresClient, MetricsRegistry) {
    let loaded = try AccountsSettings.spec.load(arguments: args)
    let configuration = try AccountsConfiguration(loaded)
    let logger = Logger(service: "accounts", level: configuration.logLevel)
    for warning in loaded.warnings { logger.warning(warning) }
    let metrics = MetricsRegistry()
    let database = PostgresClient(configuration: try PostgresClient.Configuration(url: configuration.databaseURL), logger: logger,
                                  metrics: metrics, metricsPrefix: "mailwake_accounts_postgres")
    return (configuration, logger, database, metrics)
}

let clock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

let tool = CommandLineTool(
    name: "mailwake-accounts",
    summary: "Mailwake accounts: devices, keys, APNs tokens, sessions, purchases and entitlements, outpost identities.",
    version: MailwakeVersion.current,
    commands: [
        .init(CommandSpec("serve", summary: "Apply migrations, then serve the public and admin listeners until SIGTERM.",
                          options: [ConfigurationSpec.configOption], discussion: settingsHelp)) { args in
            let (configuration, logger, database, metrics) = try prepare(args)
            let app = AccountsApp(configuration: configuration, database: database, logger: logger, metrics: metrics, clock: clock)
            try await database.waitUntilReachable(.init(total: configuration.databaseStartTimeout))
            let applied = try await app.migrate()
            if !applied.isEmpty { logger.info("migrations applied", ["versions": .string(applied.map(String.init).joined(separator: ","))]) }
            let group = ServiceGroup(services: app.servers() + [database], logger: logger)
            return await group.runReturningExitCode()
        },
        .init(CommandSpec("migrate", summary: "Apply pending database migrations and exit.",
                          options: [ConfigurationSpec.configOption], discussion: settingsHelp)) { args in
            let (configuration, logger, database, metrics) = try prepare(args)
            let app = AccountsApp(configuration: configuration, database: database, logger: logger, metrics: metrics, clock: clock)
            try await database.waitUntilReachable(.init(total: configuration.databaseStartTimeout))
            let applied = try await app.migrate()
            logger.info("migrations applied", ["versions": .string(applied.map(String.init).joined(separator: ","))])
            await database.close()
            return .success
        },
        AccountsSettings.spec.settingsCommand(),
    ])
await tool.main()
