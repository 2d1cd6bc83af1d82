extension ConfigurationSpec {
    /// Every variable name the service reads: each setting's key, and `<KEY>_FILE` for secrets.
    public var acceptedKeys: [String] {
        settings.flatMap { s in s.isSecret ? [key(s), key(s) + "_FILE"] : [key(s)] }
    }

    /// The `settings` command of every service: a Markdown table, or with `--keys` the variable names.
    ///
    /// `--keys` prints every accepted variable name, one a line, for checks
    /// that documents name only settings the binary knows.
    public func settingsCommand() -> CommandLineTool.Command {
        let spec = self
        return CommandLineTool.Command(CommandSpec(
            "settings", summary: "Print every setting with its default and meaning, as Markdown.",
            options: [OptionSpec("keys",
                                 help: "print only the variable names this program reads, one a line (secrets also as <KEY>_FILE)")]
        )) { args in
            StandardStreams.write(args.flag("keys") ? spec.acceptedKeys.joined(separator: "\n") + "\n" : spec.markdownTable() + "\n")
            return .success
        }
    }
}
