import AccountsService
import Foundation
import MailwakeCore
import MailwakePostgres
import MailwakeServiceSupport

/// `mailwake-accounts`: devices, keys, APNs tokens, sessions, App Store
/// purchases and entitlements, outpost identities (DESIGN.md §1).
let tool = CommandLineTool(
    name: "mailwake-accounts",
    summary: "Mailwake accounts: devices, keys, APNs tokens, sessions, purchases and entitlements, outpost identities.",
    version: MailwakeVersion.current,
    commands: DatabaseServiceCommands.commands(
        service: "accounts", settings: AccountsSettings.spec,
        serveSummary: "Apply migrations, then serve the public and admin listeners until SIGTERM."
    ) { args in
        let loaded = try AccountsSettings.spec.load(arguments: args)
        let configuration = try AccountsConfiguration(loaded)
        let logger = Logger(service: "accounts", level: configuration.logLevel)
        for warning in loaded.warnings { logger.warning(warning) }
        let metrics = MetricsRegistry()
        let database = PostgresClient(configuration: try PostgresClient.Configuration(url: configuration.databaseURL), logger: logger,
                                      metrics: metrics, metricsPrefix: "mailwake_accounts_postgres")
        let app = AccountsApp(configuration: configuration, database: database, logger: logger, metrics: metrics)
        return (app, logger)
    })
await tool.main()
