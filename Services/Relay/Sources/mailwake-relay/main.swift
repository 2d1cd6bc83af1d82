import MailwakeCore

/// `mailwake-relay`: push delivery: pairing rendezvous, verified intake, durable queue, APNs over HTTP/2, operator status.
///
/// Placeholder until the service's issue lands: it answers `--help` and `--version` only.
let tool = CommandLineTool(
    name: "mailwake-relay",
    summary: "Mailwake relay: push delivery: pairing rendezvous, verified intake, durable queue, APNs over HTTP/2, operator status.\nThis build is a placeholder: the service itself is not implemented yet.",
    version: MailwakeVersion.current,
    commands: [])
await tool.main()
