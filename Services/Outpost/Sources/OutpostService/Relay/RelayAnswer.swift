/// A relay's answer to a submission or call, as the outpost acts on it.
public enum RelayAnswer: Sendable, Hashable {
    /// 2xx.
    case accepted
    /// Worth sending the same bytes again after `after` seconds (429, 5xx, no answer).
    case retry(after: Int64, reason: String)
    /// Refused for good (4xx): the problem code and detail.
    case refused(status: Int, code: String, detail: String)
}
