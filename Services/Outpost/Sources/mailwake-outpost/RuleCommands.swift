import Foundation
import MailwakeCore
import OutpostService

private let scopeOptions = [
    OptionSpec("mailbox", value: "LABEL", help: "The mailbox the rule is for (default: every mailbox)"),
    OptionSpec("folder", value: "F", help: "One folder of --mailbox (default: all its folders)"),
]

/// The mailbox id and folder of `--mailbox` / `--folder`.
private func scope(_ args: ParsedArguments, _ store: OutpostStore) async throws -> (Int64?, String?) {
    let folder = args.value("folder")
    guard let label = args.value("mailbox") else {
        if folder != nil { throw UsageError("--folder needs --mailbox") }
        return (nil, nil)
    }
    guard let mailbox = try await store.mailbox(label: label) else {
        throw OutpostCommandError("no mailbox labelled '\(label)' (see `mailwake-outpost mailbox list`)")
    }
    return (mailbox.id, folder)
}

/// `mailwake-outpost rules set|list|remove`.
let ruleCommands: [CommandLineTool.Command] = [
    .init(CommandSpec("rules set", summary: "Set the notification rule of every mailbox, one mailbox, or one folder.",
                      options: [dataDirOption] + scopeOptions + [
        OptionSpec("off", help: "Notify nothing from this scope"),
        OptionSpec("quiet", value: "HH:MM-HH:MM", help: "Quiet hours in the outpost's local time (e.g. 22:00-07:00), or 'none'"),
        OptionSpec("allow", value: "PATTERNS",
                   help: "Only senders matching one of these comma-separated patterns (e.g. *@bank.example), or 'none'"),
        OptionSpec("deny", value: "PATTERNS", help: "Never senders matching one of these patterns, or 'none'"),
        OptionSpec("show", value: "FIELDS",
                   help: "What notifications carry: any of sender,subject,code, or 'nothing' (just \"New mail\")"),
    ], discussion: """
        The most specific rule applies: the folder's, else the mailbox's, else the global one.
        Options not given keep their current value for that scope. A message the rule holds back
        is not notified later; the folder still moves past it.
        """)) { args in
        let (store, _) = try await openStore(args)
        let (mailboxID, folder) = try await scope(args, store)
        var rule = try await store.rules().first { $0.mailboxID == mailboxID && $0.folder == folder }
            ?? NotificationRule(mailboxID: mailboxID, folder: folder)
        rule.enabled = !args.flag("off")
        if let quiet = args.value("quiet") {
            if quiet == "none" { rule.quietHours = nil } else {
                guard let q = NotificationRule.parseQuietHours(quiet) else { throw UsageError("--quiet must look like 22:00-07:00 " +
                                                                                              "(or none)") }
                rule.quietHours = q
            }
        }
        func patterns(_ name: String) -> [String]? {
            guard let v = args.value(name) else { return nil }
            return v == "none" ? [] : v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        if let allow = patterns("allow") { rule.allowSenders = allow }
        if let deny = patterns("deny") { rule.denySenders = deny }
        if let show = args.value("show") {
            if show == "nothing" { rule.show = [] } else {
                var fields = Set<NotificationRule.Field>()
                for name in show.split(separator: ",") {
                    guard let f = NotificationRule.Field(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                        throw UsageError("--show takes sender, subject, code (comma-separated) or nothing")
                    }
                    fields.insert(f)
                }
                rule.show = fields
            }
        }
        try await store.setRule(rule)
        let mailboxes = try await store.mailboxes()
        await store.close()
        say("Rule set: \(describe(rule, mailboxes))")
        return .success
    },
    .init(CommandSpec("rules list", summary: "List the notification rules.", options: [dataDirOption])) { args in
        let (store, _) = try await openStore(args)
        let rules = try await store.rules()
        let mailboxes = try await store.mailboxes()
        await store.close()
        if rules.isEmpty { say("No rules: every new message is notified with sender, subject and code.") }
        for rule in rules { say(describe(rule, mailboxes)) }
        return .success
    },
    .init(CommandSpec("rules remove", summary: "Remove the rule of a scope (the next broader one applies).",
                      options: [dataDirOption] + scopeOptions)) { args in
        let (store, _) = try await openStore(args)
        let (mailboxID, folder) = try await scope(args, store)
        let removed = try await store.removeRule(mailboxID: mailboxID, folder: folder)
        await store.close()
        guard removed else { throw OutpostCommandError("no rule for that scope (see `mailwake-outpost rules list`)") }
        say("Rule removed.")
        return .success
    },
]

private func describe(_ rule: NotificationRule, _ mailboxes: [MailboxRecord]) -> String {
    let label = rule.mailboxID.flatMap { id in mailboxes.first { $0.id == id }?.label } ?? "every mailbox"
    var parts = ["\(label)\(rule.folder.map { "/\($0)" } ?? "")", rule.enabled ? "on" : "off"]
    if let q = rule.quietHours { parts.append("quiet \(NotificationRule.formatQuietHours(q))") }
    if !rule.allowSenders.isEmpty { parts.append("allow \(rule.allowSenders.joined(separator: ","))") }
    if !rule.denySenders.isEmpty { parts.append("deny \(rule.denySenders.joined(separator: ","))") }
    let shown = NotificationRule.Field.allCases.filter { rule.show.contains($0) }.map(\.rawValue)
    parts.append("show \(shown.isEmpty ? "nothing (\"New mail\")" : shown.joined(separator: ","))")
    return parts.joined(separator: ", ")
}
