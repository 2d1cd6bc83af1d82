import MailwakeCore

/// `mailwake-protocol`: the reference tool for App developers and operators.
let tool = CommandLineTool(
    name: "mailwake-protocol",
    summary: "Reference implementation of the Mailwake protocol v1: keys, sealing, opening, signed requests and links.\nJSON on stdout, " +
             "errors on stderr; exit 0 on success, 1 on a failed check, 2 on a usage error.",
    version: MailwakeVersion.current,
    commands: [
        Commands.keygen, Commands.seal, Commands.open, Commands.fingerprint,
        Commands.signRequest, Commands.verifyRequest, Commands.pairLink, Commands.parseLink, Commands.consent, Commands.verifyConsent,
    ])
await tool.main()
