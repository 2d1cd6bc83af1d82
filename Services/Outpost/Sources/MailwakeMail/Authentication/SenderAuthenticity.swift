public import MailwakeProtocol

/// Whether a message's `From` domain is authentic, by the receiving server the
/// mailbox trusts (PROTOCOL §6 `sender_auth`).
///
/// The rule: of the message's `Authentication-Results` fields, top first, the
/// first one whose authserv-id the mailbox trusts is the verdict; fields above
/// it (added later by others) and fields from anyone else are ignored, so a
/// sender cannot vouch for itself. In that field, DMARC for the `From` domain
/// decides (`pass` or `fail`); where DMARC is absent or `none`, a DKIM pass by
/// a domain aligned with `From` (the same domain, or one a parent of the
/// other) is a pass. Anything else is unknown (nil).
public struct SenderAuthenticity: Sendable, Equatable {
    /// Trusted authserv-ids: exact (`mx.google.com`), a wildcard for a provider's hosts
    /// (`*.messagingengine.com`), or `-` for fields without one (Exchange Online).
    public var trusted: [String]

    public init(trusted: [String]) {
        self.trusted = trusted.map { $0.lowercased() }
    }

    /// Whether `id` is one the mailbox trusts.
    public func trusts(_ id: String) -> Bool {
        trusted.contains { pattern in
            if pattern == "-" { return id.isEmpty }
            guard !id.isEmpty else { return false }
            if pattern.hasPrefix("*.") { return id.hasSuffix(pattern.dropFirst(1)) && id.count > pattern.count - 1 }
            return id == pattern
        }
    }

    /// The verdict for a message.
    ///
    /// - Parameters:
    ///   - fields: the `Authentication-Results` field values, top (most recent) first.
    ///   - fromAddress: the message's `From` address.
    public func verdict(fields: [String], fromAddress: String) -> SenderAuthentication? {
        guard !trusted.isEmpty, let at = fromAddress.lastIndex(of: "@") else { return nil }
        let fromDomain = fromAddress[fromAddress.index(after: at)...].lowercased().trimming(">. ")
        guard !fromDomain.isEmpty,
              let field = fields.lazy.compactMap(AuthenticationResults.init).first(where: { trusts($0.authservID) }) else {
            return nil
        }
        let dmarc = field.results.filter { $0.method == "dmarc"
            && ($0.properties["header.from"].map { $0.lowercased() == fromDomain } ?? true) }
        if dmarc.contains(where: { $0.result == "fail" }) { return .fail }
        if dmarc.contains(where: { $0.result == "pass" }) { return .pass }
        if dmarc.contains(where: { $0.result != "none" }) { return nil }   // temperror, permerror: unknown
        let aligned = field.results.contains { r in
            guard r.method == "dkim", r.result == "pass" else { return false }
            let d = (r.properties["header.d"] ?? r.properties["header.i"].map { String($0.split(separator: "@").last ?? "") }
                ?? "").lowercased()
            return !d.isEmpty && (d == fromDomain || fromDomain.hasSuffix("." + d) || d.hasSuffix("." + fromDomain))
        }
        return aligned ? .pass : nil
    }
}

extension String {
    func trimming(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
