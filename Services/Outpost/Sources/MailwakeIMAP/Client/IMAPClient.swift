import Foundation

/// A blocking IMAP4rev1 client for one connection, used by one thread:
/// greeting, STARTTLS, LOGIN / AUTHENTICATE PLAIN / XOAUTH2, LIST, EXAMINE,
/// UID FETCH with BODY.PEEK (nothing is marked read), IDLE and NOOP.
/// `cancel()` may be called from any thread and ends the current wait.
///
/// Why not libetpan: Debian's libetpan is built against GnuTLS and never
/// verifies the server certificate or host name, and does not expose the
/// chain to verify it ourselves; a mail password must not go to whoever
/// answers on port 993. This client runs over `TLSStream` (OpenSSL, chain
/// and name verified) and implements the small part of IMAP the outpost needs.
public final class IMAPClient {
    public let endpoint: IMAPEndpoint
    /// Capabilities (upper-cased) from the latest CAPABILITY.
    public private(set) var capabilities: Set<String> = []
    /// The text of the server's greeting (at most 200 characters): it often names the server software.
    public private(set) var greeting = ""
    /// The SASL mechanisms offered before login (`AUTH=PLAIN`, `AUTH=XOAUTH2`…);
    /// servers stop listing them once logged in.
    public private(set) var authenticationMechanisms: Set<String> = []
    /// A change the server reported (EXISTS, EXPUNGE, VANISHED; FETCH only
    /// while idling, since our own FETCH answers are not changes) that the
    /// next `idle` has not yet returned for.
    private var sawChanges = false
    private let stream: TLSStream
    private var reader: IMAPResponseReader
    private var tagNumber = 0
    private var closed = false
    /// Called on the client's thread after every response read (untagged
    /// data, a continuation, a keepalive `* OK`, a tagged answer): each one
    /// proves the server alive. Never given the response.
    public var onResponse: (() -> Void)?

    /// Connects, reads the greeting and, for `.startTLS`, upgrades the
    /// connection before anything else is said.
    public init(endpoint: IMAPEndpoint) throws(IMAPError) {
        guard endpoint.security != .none || endpoint.isLoopback else {
            throw IMAPError(.configuration,
                            "refusing IMAP without TLS to \(endpoint.host): only a loopback server may be used without TLS")
        }
        self.endpoint = endpoint
        self.reader = IMAPResponseReader(maxResponseBytes: endpoint.maxResponseBytes)
        do {
            stream = try TLSStream(host: endpoint.host, port: endpoint.port, timeout: endpoint.connectTimeout)
        } catch {
            throw Self.error(error, connecting: true, endpoint)
        }
        do throws(IMAPError) {
            if endpoint.security == .implicitTLS { try startTLS() }
            let greeting = try readResponse(timeout: endpoint.connectTimeout)
            switch greeting {
            case .status(.ok, let code, let text), .status(.preauth, let code, let text):
                self.greeting = String(text.prefix(200))
                if let code, code.uppercased().hasPrefix("CAPABILITY ") { capabilities = Self.capabilitySet(code.dropFirst(11)) }
            case .status(.bye, _, let text):
                throw IMAPError(.closed, "the server refused the connection: \(text)")
            default:
                throw IMAPError(.protocolViolation, "the server did not greet with OK")
            }
            if capabilities.isEmpty { try refreshCapabilities() }
            if endpoint.security == .startTLS {
                guard capabilities.contains("STARTTLS") else {
                    throw IMAPError(.tls, "the server does not offer STARTTLS; use --tls implicit (port 993) or check the port")
                }
                _ = try command("STARTTLS")
                // Bytes after the OK came in plaintext: whoever sits on the path can
                // append capabilities, answers or whole messages there (CVE-2011-0411
                // class). Nothing may be carried over into the TLS session.
                guard !reader.hasBufferedBytes else {
                    throw IMAPError(.tls,
                                    "the server sent data after its STARTTLS answer, before TLS began: refusing the connection (a " +
                                    "network attacker may be injecting responses)")
                }
                try startTLS()
                try refreshCapabilities()
            }
        } catch {
            stream.close()
            throw error
        }
    }

    deinit { stream.close() }

    /// True once the connection is closed: by `close()`, by the server, or
    /// after the server did not answer within its deadline (a connection
    /// that missed one may still deliver the late answer and cannot be reused).
    public var isClosed: Bool { closed }

    /// "TLSv1.3" etc.; nil without TLS.
    public var tlsVersion: String? { stream.tlsVersion }

    /// Ends the current or next wait with `.cancelled`. Any thread.
    public func cancel() { stream.cancel() }

    /// A function that cancels this client from any thread (see `cancel()`).
    public var canceller: @Sendable () -> Void { { [stream] in stream.cancel() } }

    /// Logs in. Prefers XOAUTH2 for tokens, AUTHENTICATE PLAIN when offered, else LOGIN.
    public func authenticate(_ credentials: IMAPCredentials) throws(IMAPError) {
        authenticationMechanisms = capabilities.filter { $0.hasPrefix("AUTH=") }
        let result: [IMAPResponse]
        do throws(IMAPError) {
            switch credentials {
            case .oauth2(let user, let token):
                guard capabilities.contains("AUTH=XOAUTH2") else {
                    throw IMAPError(.authentication, "the server does not offer XOAUTH2 (AUTH=XOAUTH2)")
                }
                let initial = Data("user=\(user)\u{1}auth=Bearer \(token)\u{1}\u{1}".utf8).base64EncodedString()
                result = try authenticateSASL(mechanism: "XOAUTH2", initialResponse: initial)
            case .password(let user, let password):
                guard !capabilities.contains("LOGINDISABLED") || capabilities.contains("AUTH=PLAIN") else {
                    throw IMAPError(.authentication, "the server disables LOGIN and offers no AUTH=PLAIN")
                }
                if capabilities.contains("AUTH=PLAIN") {
                    let initial = Data(([0] + Array(user.utf8) + [0] + Array(password.utf8))).base64EncodedString()
                    result = try authenticateSASL(mechanism: "PLAIN", initialResponse: initial)
                } else {
                    result = try command("LOGIN", arguments: [.string(user), .string(password)])
                }
            }
        } catch {
            guard error.code == .refused else { throw error }
            throw IMAPError(.authentication, "the server refused the credentials for \(credentials.user): \(error.message)")
        }
        if case .tagged(_, _, let code, _)? = result.last, let code, code.uppercased().hasPrefix("CAPABILITY ") {
            capabilities = Self.capabilitySet(code.dropFirst(11))
        } else {
            try refreshCapabilities()
        }
    }

    /// Every folder (LIST "" "*").
    public func listFolders() throws(IMAPError) -> [IMAPFolder] {
        try command("LIST", raw: " \"\" \"*\"").compactMap { response -> IMAPFolder? in
            guard case .data("LIST", nil, let values) = response, values.count >= 3 else { return nil }
            let attributes = values[0].elements?.compactMap(\.text) ?? []
            guard let encoded = values[2].text else { return nil }
            return IMAPFolder(name: ModifiedUTF7.decode(encoded) ?? encoded, encodedName: encoded, delimiter: values[1].text,
                              attributes: attributes)
        }
    }

    /// Opens `folder` read-only (EXAMINE), or read-write (SELECT) with
    /// `readWrite`; with `(CONDSTORE)` when the server offers it (RFC 7162),
    /// so the selection carries HIGHESTMODSEQ.
    public func examine(_ folder: String, readWrite: Bool = false) throws(IMAPError) -> IMAPSelection {
        let condstore = capabilities.contains("CONDSTORE")
        let responses = try command(readWrite ? "SELECT" : "EXAMINE", arguments: [.string(ModifiedUTF7.encode(folder))],
                                    raw: condstore ? " (CONDSTORE)" : "")
        var validity: UInt32?, next: UInt32?, exists: UInt32 = 0, modSeq: UInt64?
        for response in responses {
            switch response {
            case .status(.ok, let code?, _):
                let words = code.split(separator: " ")
                if words.count == 2, words[0].uppercased() == "UIDVALIDITY" { validity = UInt32(words[1]) }
                if words.count == 2, words[0].uppercased() == "UIDNEXT" { next = UInt32(words[1]) }
                // NOMODSEQ (a folder without mod-sequences) leaves it nil.
                if condstore, words.count == 2, words[0].uppercased() == "HIGHESTMODSEQ" { modSeq = UInt64(words[1]) }
            case .data("EXISTS", let n?, _):
                exists = n
            default:
                break
            }
        }
        sawChanges = false
        guard let validity else { throw IMAPError(.protocolViolation,
                                                  "\(readWrite ? "SELECT" : "EXAMINE") \(folder) did not report UIDVALIDITY") }
        return IMAPSelection(uidValidity: validity, uidNext: next, exists: exists, highestModSeq: modSeq)
    }

    /// UIDs greater than `uid` in the selected folder, ascending.
    public func uids(after uid: UInt32) throws(IMAPError) -> [UInt32] {
        guard uid < UInt32.max else { return [] }
        // `N:*` also names the highest message when every UID is below N: filter.
        let responses = try command("UID FETCH", raw: " \(uid + 1):* (UID)")
        var found = Set<UInt32>()
        for response in responses {
            if case .data("FETCH", _, let values) = response, let uid = Self.attribute("UID", in: values)?.number { found.insert(uid) }
        }
        return found.filter { $0 > uid }.sorted()
    }

    /// Header, first `textBytes` of the body (none when 0), INTERNALDATE and size of `uids`.
    public func fetchSummaries(_ uids: [UInt32], textBytes: Int = 16 << 10) throws(IMAPError) -> [IMAPFetchedMessage] {
        guard !uids.isEmpty else { return [] }
        let set = uids.map(String.init).joined(separator: ",")
        let text = textBytes > 0 ? " BODY.PEEK[TEXT]<0.\(textBytes)>" : ""
        let responses = try command("UID FETCH", raw: " \(set) (UID INTERNALDATE RFC822.SIZE BODY.PEEK[HEADER]\(text))")
        var messages: [UInt32: IMAPFetchedMessage] = [:]
        for response in responses {
            guard case .data("FETCH", _, let values) = response, let uid = Self.attribute("UID", in: values)?.number else { continue }
            var header: [UInt8] = [], text: [UInt8] = []
            var date: Int64 = 0, size = 0
            if let list = values.first?.elements {
                var i = 0
                while i + 1 < list.count {
                    let name = list[i].text?.uppercased() ?? ""
                    let value = list[i + 1]
                    if name == "INTERNALDATE" { date = value.text.flatMap(IMAPDate.unixSeconds) ?? 0 }
                    if name == "RFC822.SIZE" { size = Int(value.number ?? 0) }
                    if name.hasPrefix("BODY[HEADER]") { header = value.bytes ?? [] }
                    if name.hasPrefix("BODY[TEXT]") { text = value.bytes ?? [] }
                    i += 2
                }
            }
            let merged = messages[uid]
            messages[uid] = IMAPFetchedMessage(uid: uid, internalDate: date != 0 ? date : merged?.internalDate ?? 0,
                                               size: size != 0 ? size : merged?.size ?? 0,
                                               header: header.isEmpty ? merged?.header ?? [] : header,
                                               textPrefix: text.isEmpty ? merged?.textPrefix ?? [] : text)
        }
        return uids.compactMap { messages[$0] }
    }

    /// The whole message `uid` of the selected folder, at most `maxBytes` of
    /// it (BODY.PEEK: left unread), with its full size; nil when no such UID.
    public func fetchMessage(uid: UInt32, maxBytes: Int) throws(IMAPError) -> (bytes: [UInt8], size: Int)? {
        let responses = try command("UID FETCH", raw: " \(uid) (UID RFC822.SIZE BODY.PEEK[]<0.\(max(1, maxBytes))>)")
        for response in responses {
            guard case .data("FETCH", _, let values) = response, Self.attribute("UID", in: values)?.number == uid,
                  let list = values.first?.elements else { continue }
            var bytes: [UInt8]?
            var size = 0
            var i = 0
            while i + 1 < list.count {
                let name = list[i].text?.uppercased() ?? ""
                if name == "RFC822.SIZE" { size = Int(list[i + 1].number ?? 0) }
                if name.hasPrefix("BODY[]") { bytes = list[i + 1].bytes ?? [] }
                i += 2
            }
            if let bytes { return (bytes, max(size, bytes.count)) }
        }
        return nil
    }

    /// The first `bytes` of the body of each of `uids` (BODY.PEEK: left unread).
    public func fetchTextPrefixes(_ uids: [UInt32], bytes: Int) throws(IMAPError) -> [UInt32: [UInt8]] {
        guard !uids.isEmpty, bytes > 0 else { return [:] }
        let responses = try command("UID FETCH", raw: " \(uids.map(String.init).joined(separator: ",")) (UID BODY.PEEK[TEXT]<0.\(bytes)>)")
        var out: [UInt32: [UInt8]] = [:]
        for response in responses {
            guard case .data("FETCH", _, let values) = response, let uid = Self.attribute("UID", in: values)?.number,
                  let list = values.first?.elements else { continue }
            var i = 0
            while i + 1 < list.count {
                if list[i].text?.uppercased().hasPrefix("BODY[TEXT]") == true { out[uid] = list[i + 1].bytes ?? [] }
                i += 2
            }
        }
        return out
    }

    /// Appends `message` (RFC 822 bytes) to `folder`; returns the new UID
    /// when the server reports it (UIDPLUS `APPENDUID`).
    @discardableResult
    public func append(_ message: [UInt8], to folder: String) throws(IMAPError) -> UInt32? {
        let responses = try command("APPEND", arguments: [.string(ModifiedUTF7.encode(folder)), .literal(message)])
        guard case .tagged(_, _, let code?, _)? = responses.last else { return nil }
        let words = code.split(separator: " ")
        return words.count == 3 && words[0].uppercased() == "APPENDUID" ? UInt32(words[2]) : nil
    }

    /// The flags of `uids` (`\Seen`, `\Deleted`…); a UID missing from the
    /// answer no longer exists.
    public func flags(_ uids: [UInt32]) throws(IMAPError) -> [UInt32: Set<String>] {
        guard !uids.isEmpty else { return [:] }
        let responses = try command("UID FETCH", raw: " \(uids.map(String.init).joined(separator: ",")) (UID FLAGS)")
        var out: [UInt32: Set<String>] = [:]
        for response in responses {
            guard case .data("FETCH", _, let values) = response, let uid = Self.attribute("UID", in: values)?.number else { continue }
            out[uid] = Set((Self.attribute("FLAGS", in: values)?.elements ?? []).compactMap { $0.text?.lowercased() })
        }
        return out
    }

    /// NOOP: lets the server report new messages.
    public func noop() throws(IMAPError) { _ = try command("NOOP") }

    /// What ended an IDLE.
    public enum IdleOutcome: Sendable, Equatable {
        /// The server reported a change (EXISTS, EXPUNGE, FETCH…).
        case changed
        /// `maximum` passed quietly.
        case timedOut
    }

    /// IDLE until the server reports a change or `maximum` passes, then DONE.
    /// Returns at once when a change arrived since the previous `idle`
    /// (new mail reported in the answer to another command).
    public func idle(maximum: Duration) throws(IMAPError) -> IdleOutcome {
        guard capabilities.contains("IDLE") else { throw IMAPError(.configuration, "the server does not support IDLE") }
        defer { sawChanges = false }
        let tag = nextTag()
        try send(Array("\(tag) IDLE\r\n".utf8))
        while true {
            let response = try readResponse(timeout: endpoint.commandTimeout)
            if case .continuation = response { break }
            if case .tagged(tag, let status, _, let text) = response {
                throw IMAPError(.refused, "IDLE: \(status.rawValue) \(text)")
            }
            note(response, idling: true)
        }
        let deadline = ContinuousClock.now + maximum
        while !sawChanges {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { break }
            let response: IMAPResponse
            do { response = try readResponse(timeout: left,
                                             closingOnTimeout: false) } catch let error where error.code == .timedOut { break }
            note(response, idling: true)
        }
        try send(Array("DONE\r\n".utf8))
        _ = try finish(tag: tag, command: "IDLE")
        return sawChanges ? .changed : .timedOut
    }

    /// LOGOUT (best effort) and close.
    public func logout() {
        guard !closed else { return }
        _ = try? command("LOGOUT")
        close()
    }

    public func close() {
        closed = true
        stream.close()
    }

    // MARK: commands

    private func refreshCapabilities() throws(IMAPError) {
        for response in try command("CAPABILITY") {
            if case .data("CAPABILITY", nil, let values) = response { capabilities = Set(values.compactMap { $0.text?.uppercased() }) }
        }
    }

    private func authenticateSASL(mechanism: String, initialResponse: String) throws(IMAPError) -> [IMAPResponse] {
        let tag = nextTag()
        if capabilities.contains("SASL-IR") {
            try send(Array("\(tag) AUTHENTICATE \(mechanism) \(initialResponse)\r\n".utf8))
        } else {
            try send(Array("\(tag) AUTHENTICATE \(mechanism)\r\n".utf8))
            try awaitContinuation(tag: tag, command: "AUTHENTICATE")
            try send(Array("\(initialResponse)\r\n".utf8))
        }
        var responses: [IMAPResponse] = []
        while true {
            let response = try readResponse(timeout: endpoint.commandTimeout)
            switch response {
            case .continuation:
                // A SASL error challenge (XOAUTH2 sends JSON): answer empty, the NO follows.
                try send(Array("\r\n".utf8))
            case .tagged(tag, .ok, _, _):
                responses.append(response)
                return responses
            case .tagged(tag, let status, _, let text):
                throw IMAPError(.refused, "\(status.rawValue) \(text)")
            default:
                note(response)
                responses.append(response)
            }
        }
    }

    /// Sends `name` with `arguments` (literals waited for) and returns the
    /// untagged responses and the tagged OK; NO/BAD throw `.refused`.
    @discardableResult
    func command(_ name: String, arguments: [IMAPArgument] = [], raw: String = "") throws(IMAPError) -> [IMAPResponse] {
        let tag = nextTag()
        var line = Array("\(tag) \(name)".utf8)
        for argument in arguments {
            line.append(0x20)
            switch argument {
            case .atom(let a): line += Array(a.utf8)
            case .quoted(let q): line += Array(IMAPArgument.quote(q).utf8)
            case .literal(let bytes):
                if capabilities.contains("LITERAL+") {
                    line += Array("{\(bytes.count)+}\r\n".utf8) + bytes
                } else {
                    line += Array("{\(bytes.count)}\r\n".utf8)
                    try send(line)
                    try awaitContinuation(tag: tag, command: name)
                    line = bytes
                }
            }
        }
        line += Array(raw.utf8) + [0x0D, 0x0A]
        try send(line)
        return try finish(tag: tag, command: name)
    }

    private func finish(tag: String, command name: String) throws(IMAPError) -> [IMAPResponse] {
        var responses: [IMAPResponse] = []
        while true {
            let response = try readResponse(timeout: endpoint.commandTimeout)
            if case .tagged(let t, let status, _, let text) = response, t == tag {
                guard status == .ok else { throw IMAPError(.refused, "\(name): \(status.rawValue) \(text)") }
                responses.append(response)
                return responses
            }
            note(response)
            responses.append(response)
        }
    }

    private func awaitContinuation(tag: String, command name: String) throws(IMAPError) {
        while true {
            let response = try readResponse(timeout: endpoint.commandTimeout)
            if case .continuation = response { return }
            if case .tagged(tag, let status, _, let text) = response { throw IMAPError(.refused, "\(name): \(status.rawValue) \(text)") }
            note(response)
        }
    }

    private func note(_ response: IMAPResponse, idling: Bool = false) {
        switch response {
        case .data(let name, _?, _) where name == "EXISTS" || name == "EXPUNGE" || name == "RECENT" || (idling && name == "FETCH"):
            sawChanges = true
        case .data("VANISHED", _, _):
            sawChanges = true
        default:
            break
        }
    }

    // MARK: I/O

    private func nextTag() -> String {
        tagNumber += 1
        return "M\(tagNumber)"
    }

    private func send(_ bytes: [UInt8]) throws(IMAPError) {
        guard !closed else { throw IMAPError(.closed, "the connection is closed") }
        do { try stream.write(bytes, timeout: endpoint.commandTimeout) } catch {
            // A server that has not read what we sent for that long is as dead as a silent one.
            if error == .timedOut { close() }
            throw Self.error(error, connecting: false, endpoint)
        }
    }

    /// The next response, waiting at most `timeout` for each read. A server
    /// that owes an answer and stays silent that long is taken for dead: the
    /// connection is closed (`closingOnTimeout`; IDLE's own quiet wait is not).
    private func readResponse(timeout: Duration?, closingOnTimeout: Bool = true) throws(IMAPError) -> IMAPResponse {
        guard !closed else { throw IMAPError(.closed, "the connection is closed") }
        let bytes: [UInt8]
        do {
            bytes = try reader.next(from: stream, timeout: timeout)
        } catch {
            switch error {
            case .stream(.timedOut) where closingOnTimeout:
                close()
                throw IMAPError(.timedOut, "the server did not answer within \(Self.seconds(timeout)) s: the connection is taken for dead")
            case .stream(let failure): throw Self.error(failure, connecting: false, endpoint)
            case .closed:
                closed = true
                throw IMAPError(.closed, "the server closed the connection")
            case .tooLong(let what): throw IMAPError(.protocolViolation, what)
            }
        }
        let response: IMAPResponse
        do { response = try IMAPResponseParser.parse(bytes) } catch {
            throw IMAPError(.protocolViolation, "cannot parse a server response: \(error.description)")
        }
        if case .status(.bye, _, let text) = response {
            closed = true
            stream.close()
            throw IMAPError(.closed, "the server ended the session: \(text)")
        }
        onResponse?()
        return response
    }

    private static func seconds(_ d: Duration?) -> String {
        guard let d else { return "∞" }
        let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        return s == s.rounded() ? String(Int(s)) : String(format: "%.1f", s)
    }

    private func startTLS() throws(IMAPError) {
        do {
            try stream.startTLS(serverName: endpoint.host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
                                caFile: endpoint.caFile,
                                timeout: endpoint.connectTimeout)
        } catch {
            if case .io(let message) = error { throw IMAPError(.tls, message) }
            throw Self.error(error, connecting: true, endpoint)
        }
    }

    private static func error(_ failure: TLSStream.Failure, connecting: Bool, _ endpoint: IMAPEndpoint) -> IMAPError {
        switch failure {
        case .timedOut:
            IMAPError(.timedOut,
                      connecting ? "connecting to \(endpoint.host):\(endpoint.port) timed out" : "the server did not answer in time")
        case .cancelled: IMAPError(.cancelled, "cancelled")
        case .io(let message): IMAPError(connecting ? .connect : .closed,
                                         connecting ? "\(endpoint.host):\(endpoint.port): \(message)" : message)
        }
    }

    private static func capabilitySet(_ text: Substring) -> Set<String> {
        Set(text.split(separator: " ").map { $0.uppercased() })
    }

    /// The value after `name` in a FETCH attribute list.
    static func attribute(_ name: String, in values: [IMAPValue]) -> IMAPValue? {
        guard let list = values.first?.elements else { return nil }
        var i = 0
        while i + 1 < list.count {
            if list[i].text?.uppercased() == name { return list[i + 1] }
            i += 2
        }
        return nil
    }
}
