import Foundation
public import MailwakeHTTPClient
public import MailwakeHTTPTypes

/// What a channel's answer means for the delivery.
public enum ChannelOutcome: Sendable, Equatable {
    case sent
    /// Try again, not before `seconds` from now.
    case retry(after: Int64, reason: String)
    /// Give up on this delivery (a request the service refuses).
    case failed(String)
    /// Give up and turn the channel off (a webhook answering 410 Gone).
    case disable(String)

    /// Reads a channel's HTTP answer.
    public static func of(_ response: HTTPClient.Response, kind: ChannelRecord.Kind) -> ChannelOutcome {
        let code = response.status.code
        let retryAfter = response.headers["retry-after"].flatMap { Int64($0) }
        switch (kind, code) {
        case (_, 200..<300):
            if kind == .pushover, !response.text.contains("\"status\":1") { return .failed("Pushover answered \(code) without status 1") }
            return .sent
        case (.webhook, 410):
            return .disable("the webhook answered 410 Gone: the receiver asks not to be called again")
        case (.pushover, 429):
            let reset = PushoverQuota(response.headers)?.resetsAt.map { " until \(Self.date($0))" } ?? ""
            return .failed("Pushover: the application's monthly message quota is used up\(reset)")
        case (.pushover, 400..<500):
            // Pushover: a 4xx will fail again (bad token or user); never retry.
            return .failed("Pushover refused the message (\(code)): \(Self.pushoverErrors(response.text))")
        case (_, 429), (_, 408):
            return .retry(after: retryAfter ?? 30, reason: "\(kind.rawValue) answered \(code)")
        case (.webhook, 400..<500):
            return .retry(after: retryAfter ?? 0, reason: "the webhook answered \(code)")
        case (_, 400..<500):
            return .failed("\(kind.rawValue) refused the message (\(code))")
        default:
            // 5xx: Pushover asks for at least 5 s between retries.
            return .retry(after: max(retryAfter ?? 0, kind == .pushover ? 5 : 0), reason: "\(kind.rawValue) answered \(code)")
        }
    }

    static func date(_ unix: Int64) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withFullDate]
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(unix)))
    }

    static func pushoverErrors(_ body: String) -> String {
        guard let range = body.range(of: "\"errors\":[") else { return "no reason given" }
        let rest = body[range.upperBound...]
        return String(rest.prefix { $0 != "]" }.prefix(200))
    }
}

/// Pushover's quota headers: `X-Limit-App-Limit`, `-Remaining`, `-Reset`.
public struct PushoverQuota: Sendable, Equatable {
    public var limit: Int
    public var remaining: Int
    /// When the quota resets (Unix seconds).
    public var resetsAt: Int64?

    public init?(_ headers: HTTPHeaders) {
        guard let limit = headers["x-limit-app-limit"].flatMap({ Int($0) }),
              let remaining = headers["x-limit-app-remaining"].flatMap({ Int($0) }) else {
            return nil
        }
        self.limit = limit
        self.remaining = remaining
        resetsAt = headers["x-limit-app-reset"].flatMap { Int64($0) }
    }

    /// Less than a tenth of the month's messages left.
    public var isLow: Bool { limit > 0 && remaining * 10 < limit }
}
