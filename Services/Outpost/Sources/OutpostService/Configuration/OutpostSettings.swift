public import MailwakeCore

/// The daemon's settings (`MAILWAKE_OUTPOST_*`, or a `--config` file). The
/// data directory also takes `--data-dir` on every command.
public enum OutpostSettings {
    public static let dataDir = ConfigurationSetting<String>.string("DATA_DIR", default: "", allowEmpty: true, help: "The data directory; empty means /var/lib/mailwake-outpost as root, $XDG_DATA_HOME/mailwake-outpost otherwise.")
    public static let deliveryMaxAge = ConfigurationSetting<Duration>.duration("DELIVERY_MAX_AGE", default: .seconds(86400), range: 60...604_800, help: "How long a notification the relay has not taken is kept trying before it expires (the relay refuses older ones too).")
    public static let historyDays = ConfigurationSetting<Int>.int("HISTORY_DAYS", default: 30, range: 1...3650, help: "Days the administrator history (what was notified, to which device, how it went) is kept.")
    public static let logLevel = ConfigurationSetting<LogLevel>.logLevel()

    public static let spec = ConfigurationSpec(service: "outpost", settings: [dataDir, deliveryMaxAge, historyDays, logLevel])
}
