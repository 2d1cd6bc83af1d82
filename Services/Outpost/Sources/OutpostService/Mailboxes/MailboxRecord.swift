public import MailwakeIMAP

/// A watched IMAP account: where it is, who logs in, how, and which folders.
/// The password or OAuth token command is sealed in the database and read
/// separately (`OutpostStore.mailboxSecret`).
public struct MailboxRecord: Sendable, Equatable {
    /// How the outpost logs in.
    public enum Authentication: String, Sendable, Equatable {
        /// LOGIN / AUTHENTICATE PLAIN with a stored password.
        case password
        /// AUTHENTICATE XOAUTH2 with a token printed by a stored command.
        case oauth2
    }

    public var id: Int64
    /// The user's name for it, shown in notifications ("Work", "Gmail").
    public var label: String
    public var endpoint: IMAPEndpoint
    public var username: String
    public var authentication: Authentication
    public var folders: [String]
    /// Most IMAP connections opened to this account at once (Gmail allows 15).
    public var maxConnections: Int
    public var enabled: Bool
    /// The receiving servers whose `Authentication-Results` decide `sender_auth` (`SenderAuthenticity.trusted`).
    public var trustedAuthservIDs: [String]
    /// How often IDLE is renewed for this account; nil: the outpost's `IDLE_RESTART`.
    public var idleRestart: Duration?
    /// The preset it was added with (`--provider`), if any.
    public var provider: String?

    public init(id: Int64 = 0, label: String, endpoint: IMAPEndpoint, username: String, authentication: Authentication,
                folders: [String] = ["INBOX"], maxConnections: Int = 10, enabled: Bool = true, trustedAuthservIDs: [String] = [],
                idleRestart: Duration? = nil, provider: String? = nil) {
        self.id = id
        self.label = label
        self.endpoint = endpoint
        self.username = username
        self.authentication = authentication
        self.folders = folders
        self.maxConnections = maxConnections
        self.enabled = enabled
        self.trustedAuthservIDs = trustedAuthservIDs
        self.idleRestart = idleRestart
        self.provider = provider
    }
}
