public import MailwakeIMAP
public import MailwakeMail
public import MailwakeProtocol

/// Builds the notification for a fetched message: sender, subject,
/// INTERNALDATE, and a verification code from the subject or the visible
/// text of the start of the body.
public enum MailNotificationBuilder {
    /// Bytes of body fetched for code detection.
    public static let bodyPrefixBytes = 16 << 10

    /// True when the subject alone carries a code (the body need not be fetched).
    public static func subjectHasCode(_ message: IMAPFetchedMessage) -> Bool {
        guard let summary = try? MessageSummary(rfc822: message.header) else { return false }
        return CodeDetector.detect(in: summary.subject, source: .subject) != nil
    }

    /// - Parameter authenticity: the receiving servers the mailbox trusts for `sender_auth` (none: left out).
    public static func content(for message: IMAPFetchedMessage, mailbox: String, folder: String,
                               authenticity: SenderAuthenticity = SenderAuthenticity(trusted: [])) -> NotificationContent {
        let summary = try? MessageSummary(rfc822: message.rfc822Prefix, maxText: bodyPrefixBytes)
        let receivedAt = message.internalDate > 0 ? message.internalDate : summary?.date ?? 0
        let code = summary.flatMap { CodeDetector.detect(subject: $0.subject, body: $0.visibleText) }
        return NotificationContent(mailbox: mailbox, folder: folder,
                                   from: .init(name: summary?.fromName ?? "", address: summary?.fromAddress ?? ""),
                                   subject: summary?.subject ?? "", receivedAt: UInt64(max(0, receivedAt)), code: code?.value,
                                   senderAuth: summary?.senderAuthentication(trusting: authenticity))
    }
}
