import MailwakeCore

/// `mailwake-accounts`: devices, keys, APNs tokens, sessions, App Store purchases and entitlements, outpost identities.
///
/// Placeholder until the service's issue lands: it answers `--help` and `--version` only.
let tool = CommandLineTool(
    name: "mailwake-accounts",
    summary: "Mailwake accounts: devices, keys, APNs tokens, sessions, App Store purchases and entitlements, outpost identities.\nThis build is a placeholder: the service itself is not implemented yet.",
    version: MailwakeVersion.current,
    commands: [])
await tool.main()
