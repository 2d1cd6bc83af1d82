import MailwakeCore

/// `mailwake-outpost`: self-hosted: watches IMAP mailboxes, seals a notification per new message for each paired iPhone, submits it to the relay, serves bodies over HTTPS.
///
/// Placeholder until the service's issue lands: it answers `--help` and `--version` only.
let tool = CommandLineTool(
    name: "mailwake-outpost",
    summary: "Mailwake outpost: self-hosted: watches IMAP mailboxes, seals a notification per new message for each paired iPhone, submits it to the relay, serves bodies over HTTPS.\nThis build is a placeholder: the service itself is not implemented yet.",
    version: MailwakeVersion.current,
    commands: [])
await tool.main()
