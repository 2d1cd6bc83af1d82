/// A parsed server response.
public enum IMAPResponse: Sendable, Equatable {
    /// `+ text`: the server waits for more of the command.
    case continuation(String)
    /// `TAG OK|NO|BAD [CODE] text`: the end of a command.
    case tagged(tag: String, status: IMAPStatus, code: String?, text: String)
    /// `* OK|NO|BAD|BYE|PREAUTH [CODE] text`.
    case status(IMAPStatus, code: String?, text: String)
    /// `* [N] NAME values…`: CAPABILITY, LIST, FLAGS, `N EXISTS`, `N FETCH (…)`…
    case data(name: String, number: UInt32?, values: [IMAPValue])
}

/// The condition of a status response.
public enum IMAPStatus: String, Sendable, Equatable {
    case ok = "OK"
    case no = "NO"
    case bad = "BAD"
    case bye = "BYE"
    case preauth = "PREAUTH"
}
