public import MailwakeIMAP

/// What a large provider needs to be watched well: where its IMAP server is,
/// how one logs in, how many connections it allows, how often IDLE must be
/// renewed, and which receiving server's `Authentication-Results` to trust.
/// Sources are the providers' own help pages (docs/outpost.md, "Providers").
public struct ProviderPreset: Sendable, Equatable {
    public var name: String
    public var host: String
    public var port: UInt16
    public var security: IMAPEndpoint.Security
    /// How the provider lets IMAP clients log in.
    public var authentication: MailboxRecord.Authentication
    /// What the password is, when one is used (shown by `mailbox add`).
    public var passwordNote: String?
    /// Connections the provider allows per account, minus room for the user's own mail apps.
    public var maxConnections: Int
    /// How often IDLE is ended and re-issued (the provider drops quiet connections sooner than RFC 2177's 29 minutes).
    public var idleRestart: Duration
    /// The authserv-ids of the provider's receiving servers (`SenderAuthenticity.trusted`); empty when not known.
    public var trustedAuthservIDs: [String]

    /// The presets, by the name `--provider` takes.
    public static let all: [String: ProviderPreset] = [
        "gmail": .init(name: "Gmail", host: "imap.gmail.com", port: 993, security: .implicitTLS, authentication: .oauth2,
                       passwordNote: "an app password (Google Account → Security → 2-Step Verification → App passwords)",
                       maxConnections: 10, idleRestart: .seconds(540), trustedAuthservIDs: ["mx.google.com"]),
        "outlook": .init(name: "Outlook.com and Microsoft 365", host: "outlook.office365.com", port: 993, security: .implicitTLS,
                         authentication: .oauth2, passwordNote: nil, maxConnections: 8, idleRestart: .seconds(600),
                         trustedAuthservIDs: ["-"]),
        "icloud": .init(name: "iCloud Mail", host: "imap.mail.me.com", port: 993, security: .implicitTLS, authentication: .password,
                        passwordNote: "an app-specific password (account.apple.com → Sign-In and Security → App-Specific Passwords)",
                        maxConnections: 5, idleRestart: .seconds(600), trustedAuthservIDs: []),
        "yahoo": .init(name: "Yahoo Mail", host: "imap.mail.yahoo.com", port: 993, security: .implicitTLS, authentication: .password,
                       passwordNote: "an app password (Account Security → Generate app password)",
                       maxConnections: 5, idleRestart: .seconds(600), trustedAuthservIDs: []),
        "fastmail": .init(name: "Fastmail", host: "imap.fastmail.com", port: 993, security: .implicitTLS, authentication: .password,
                          passwordNote: "an app password with IMAP access (Settings → Privacy & Security → App passwords)",
                          maxConnections: 10, idleRestart: .seconds(1500), trustedAuthservIDs: ["*.messagingengine.com"]),
        "gmx": .init(name: "GMX", host: "imap.gmx.net", port: 993, security: .implicitTLS, authentication: .password,
                     passwordNote: "the account password, after allowing IMAP access in the web mail settings",
                     maxConnections: 5, idleRestart: .seconds(600), trustedAuthservIDs: []),
        "webde": .init(name: "WEB.DE", host: "imap.web.de", port: 993, security: .implicitTLS, authentication: .password,
                       passwordNote: "the account password, after allowing IMAP access in the web mail settings",
                       maxConnections: 5, idleRestart: .seconds(600), trustedAuthservIDs: []),
        "mailbox.org": .init(name: "mailbox.org", host: "imap.mailbox.org", port: 993, security: .implicitTLS, authentication: .password,
                             passwordNote: nil, maxConnections: 10, idleRestart: .seconds(1500), trustedAuthservIDs: []),
        "posteo": .init(name: "Posteo", host: "posteo.de", port: 993, security: .implicitTLS, authentication: .password,
                        passwordNote: nil, maxConnections: 10, idleRestart: .seconds(1500), trustedAuthservIDs: []),
        "zoho": .init(name: "Zoho Mail", host: "imap.zoho.com", port: 993, security: .implicitTLS, authentication: .password,
                      passwordNote: "an application-specific password when two-factor authentication is on",
                      maxConnections: 5, idleRestart: .seconds(600), trustedAuthservIDs: []),
        "aol": .init(name: "AOL Mail", host: "imap.aol.com", port: 993, security: .implicitTLS, authentication: .password,
                     passwordNote: "an app password (Account Security → Generate app password)",
                     maxConnections: 5, idleRestart: .seconds(600), trustedAuthservIDs: []),
        "proton": .init(name: "Proton Mail (through Proton Mail Bridge on this machine)", host: "127.0.0.1", port: 1143,
                        security: .startTLS,
                        authentication: .password,
                        passwordNote: "the password Proton Mail Bridge shows for IMAP (not the account password)",
                        maxConnections: 5, idleRestart: .seconds(1500), trustedAuthservIDs: []),
    ]

    /// The preset names, sorted (for usage messages).
    public static var names: [String] { all.keys.sorted() }
}
