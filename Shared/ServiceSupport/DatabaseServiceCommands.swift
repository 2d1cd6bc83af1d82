public import MailwakeCore

/// The commands every PostgreSQL-backed service has: `serve` (migrate, then
/// run until SIGTERM), `migrate` (and exit) and `settings`.
public enum DatabaseServiceCommands {
    /// - Parameters:
    ///   - service: the service's name in log lines (`relay`, `accounts`).
    ///   - settings: its settings (help text and the `settings` command).
    ///   - serveSummary: what `serve` runs, for `--help`.
    ///   - prepare: loads the configuration and builds the instance and its logger.
    public static func commands<App: DatabaseBackedApp>(
        service: String, settings: ConfigurationSpec, serveSummary: String,
        prepare: @escaping @Sendable (ParsedArguments) throws -> (App, Logger)
    ) -> [CommandLineTool.Command] {
        let help = settings.helpText()
        return [
            .init(CommandSpec("serve", summary: serveSummary, options: [ConfigurationSpec.configOption], discussion: help)) { args in
                let (app, logger) = try prepare(args)
                let applied = try await migrated(app)
                if !applied.isEmpty { logger.info("migrations applied", ["versions": .string(list(applied))]) }
                logger.info("\(service) starting", app.startingLogFields)
                let code = await ServiceGroup(services: app.services(), logger: logger).runReturningExitCode()
                app.shutdownClients()
                return code
            },
            .init(CommandSpec("migrate", summary: "Apply pending database migrations and exit.", options: [ConfigurationSpec.configOption],
                              discussion: help)) { args in
                let (app, logger) = try prepare(args)
                let applied = try await migrated(app)
                logger.info("migrations applied", ["versions": .string(list(applied))])
                await app.database.close()
                app.shutdownClients()
                return .success
            },
            settings.settingsCommand(),
        ]
    }

    /// Waits for PostgreSQL (up to the start timeout), then migrates.
    private static func migrated(_ app: some DatabaseBackedApp) async throws -> [Int64] {
        try await app.database.waitUntilReachable(.init(total: app.databaseStartTimeout))
        return try await app.migrate()
    }

    private static func list(_ versions: [Int64]) -> String { versions.map(String.init).joined(separator: ",") }
}
