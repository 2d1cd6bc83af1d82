import MailwakeProtocol

/// What became of one APNs request, and what the relay does next.
enum APNsResult: Sendable, Hashable {
    /// 200: Apple accepted it.
    case sent
    /// A final refusal; `tokenInvalid` when the device token is gone (410,
    /// `BadDeviceToken`, `DeviceTokenNotForTopic`) and accounts must hear of it.
    case failed(status: Int, reason: DeliveryReason, tokenInvalid: Bool, timestampMS: Int64?)
    /// Try again later (429, 5xx, transport errors, configuration-side 403s).
    case retry(status: Int?, reason: DeliveryReason)
    /// The provider token was refused: renew it, reconnect, then retry.
    case renewToken(status: Int, reason: DeliveryReason)

    /// Classifies an APNs answer (status and `reason`).
    static func classify(status: Int, reason: DeliveryReason, timestampMS: Int64?) -> APNsResult {
        switch (status, reason.rawValue) {
        case (200, _):
            return .sent
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
            return .failed(status: status, reason: reason, tokenInvalid: true, timestampMS: timestampMS)
        case (403, "ExpiredProviderToken"), (403, "InvalidProviderToken"), (403, "MissingProviderToken"):
            return .renewToken(status: status, reason: reason)
        case (403, _):
            // BadCertificate, BadCertificateEnvironment, Forbidden: the
            // operator's set-up; keep the envelope until it is fixed or expires.
            return .retry(status: status, reason: reason)
        case (429, _), (500..., _):
            return .retry(status: status, reason: reason)
        default:
            // 400 (malformed request), 404 BadPath, 405, 413 PayloadTooLarge:
            // sending the same bytes again cannot succeed.
            return .failed(status: status, reason: reason, tokenInvalid: false, timestampMS: nil)
        }
    }

    /// APNs or the connection pushed back (a transport failure, 429, 503): the in-flight window shrinks.
    var congested: Bool {
        if case .retry(let status, _) = self { return status == nil || status == 429 || status == 503 }
        return false
    }

    /// APNs's reason, or the relay's for an answer that never came; empty when sent.
    var reasonLabel: String {
        switch self {
        case .sent: ""
        case .failed(_, let r, _, _), .retry(_, let r), .renewToken(_, let r): r.rawValue
        }
    }

    /// The label of `mailwake_relay_apns_requests_total`.
    var outcomeLabel: String {
        switch self {
        case .sent: "sent"
        case .failed: "failed"
        case .retry: "retry"
        case .renewToken: "renew_token"
        }
    }
}
