public import MailwakeCore

/// The daemon's settings (`MAILWAKE_OUTPOST_*`, or a `--config` file). The
/// data directory also takes `--data-dir` on every command.
public enum OutpostSettings {
    public static let dataDir = ConfigurationSetting<String>.string("DATA_DIR", default: "", allowEmpty: true,
                                                                    help: "The data directory; empty means /var/lib/mailwake-outpost as " +
                                                                          "root, $XDG_DATA_HOME/mailwake-outpost otherwise.")
    public static let deliveryMaxAge = ConfigurationSetting<Duration>.duration("DELIVERY_MAX_AGE", default: .seconds(86400),
                                                                               range: 60...604_800,
                                                                               help: "How long a notification the relay has not taken " +
                                                                                     "is kept trying before it expires (the relay " +
                                                                                     "refuses older ones too).")
    public static let heartbeatInterval = ConfigurationSetting<Duration>.duration("HEARTBEAT_INTERVAL", default: .seconds(60),
                                                                                  range: 1...600,
                                                                                  help: "How often the outpost tells its relay it is " +
                                                                                        "alive while it has active pairings (watched " +
                                                                                        "and failing mailbox counts); the relay alerts " +
                                                                                        "the paired devices after its OUTPOST_SILENCE " +
                                                                                        "without one.")
    public static let historyDays = ConfigurationSetting<Int>.int("HISTORY_DAYS", default: 30, range: 1...3650,
                                                                  help: "Days the administrator history (what was notified, to which " +
                                                                        "device, how it went) is kept.")
    public static let idleRestart = ConfigurationSetting<Duration>.duration("IDLE_RESTART", default: .seconds(240), range: 1...300,
                                                                            help: "IMAP IDLE is ended and re-issued after this long (at " +
                                                                                  "most 5 minutes): servers and NATs drop quiet " +
                                                                                  "connections well before RFC 2177's 29 minutes.")
    public static let imapResponseTimeout = ConfigurationSetting<Duration>.duration("IMAP_RESPONSE_TIMEOUT", default: .seconds(60),
                                                                                    range: 1...600,
                                                                                    help: "Longest silence accepted from an IMAP server " +
                                                                                          "that owes an answer (a command's reply, the " +
                                                                                          "answer to DONE that ends each IDLE): past it " +
                                                                                          "the connection is taken for dead (a stopped " +
                                                                                          "server, dropped packets), closed and " +
                                                                                          "replaced, and the folder caught up.")
    public static let pollInterval = ConfigurationSetting<Duration>.duration("POLL_INTERVAL", default: .seconds(60), range: 1...3600,
                                                                             help: "How often a folder is checked when its server has " +
                                                                                   "no IDLE, or beyond an account's connection limit.")
    public static let reconnectBackoff = ConfigurationSetting<Duration>.duration("RECONNECT_BACKOFF", default: .seconds(2), range: 1...600,
                                                                                 help: "First delay before reconnecting to a mailbox " +
                                                                                       "after an error; it doubles up to 5 minutes, " +
                                                                                       "with jitter (refused credentials start at 5 " +
                                                                                       "minutes).")
    public static let liveActivityLifetime = ConfigurationSetting<Duration>.duration("LIVE_ACTIVITY_LIFETIME", default: .seconds(600),
                                                                                     range: 0...28_800,
                                                                                     help: "How long a verification code stays as a " +
                                                                                           "Live Activity before it ends by itself (it " +
                                                                                           "also ends when the message is read or " +
                                                                                           "deleted); 0 turns Live Activities off.")
    public static let listen = ConfigurationSetting<String>.string("LISTEN", default: "0.0.0.0:8443", allowEmpty: true,
                                                                   help: "Address and port of the HTTPS API the App reads bodies and " +
                                                                         "manages the outpost through (host:port; IPv6 as [::]:8443); " +
                                                                         "empty turns it off.")
    public static let perIPConnectionLimit = ConfigurationSetting<Int>.int("PER_IP_CONNECTION_LIMIT", default: 32, range: 0...1_000_000,
                                                                           help: "Concurrent connections one IP address may hold on the " +
                                                                                 "HTTPS API; 0 turns the limit off (behind a reverse " +
                                                                                 "proxy that shares an address).")
    public static let adminListen = ConfigurationSetting<String>.string("ADMIN_LISTEN", default: "127.0.0.1:9445", allowEmpty: true,
                                                                        help: "Address and port of the admin listener (/metrics, " +
                                                                              "/healthz, /readyz): plain HTTP on loopback, HTTPS with " +
                                                                              "the API's certificate (TLS_CERT/TLS_KEY, or the " +
                                                                              "self-signed one) on any other address; empty turns it off.")
    public static let publicURL = ConfigurationSetting<String>.string("PUBLIC_URL", default: "", allowEmpty: true,
                                                                      help: "The HTTPS origin the App reaches this outpost at, e.g. " +
                                                                            "https://mail.example.net:8443: put in invitations and " +
                                                                            "signed for (PROTOCOL §8); empty means https://<host " +
                                                                            "name>:<LISTEN port>.")
    public static let tlsCertificate = ConfigurationSetting<String>.existingFile("TLS_CERT",
                                                                                 help: "PEM certificate chain of the HTTPS API; without " +
                                                                                       "it the outpost makes a self-signed one in <data " +
                                                                                       "dir>/tls (invitations pin its key " +
                                                                                       "either way).").optional()
    public static let tlsKey = ConfigurationSetting<String>.existingFile("TLS_KEY", help: "PEM private key of TLS_CERT.").optional()
    public static let bodyMaxBytes = ConfigurationSetting<Int>.int("BODY_MAX_BYTES", default: 10 << 20, range: (64 << 10)...(15 << 20),
                                                                   help: "Bytes of a message fetched at most to show it; the rest of a " +
                                                                         "larger message is cut (and the answer says so).")
    public static let logLevel = ConfigurationSetting<LogLevel>.logLevel()

    public static let spec = ConfigurationSpec(service: "outpost",
                                               settings: [dataDir, deliveryMaxAge, heartbeatInterval, historyDays, idleRestart,
                                                          imapResponseTimeout, pollInterval, reconnectBackoff, liveActivityLifetime,
                                                                                  listen, perIPConnectionLimit, adminListen, publicURL,
                                                                                  tlsCertificate, tlsKey, bodyMaxBytes,
                                                                                  logLevel] + OAuthSettings.all)
}
