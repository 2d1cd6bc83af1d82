/// An error with a stable code and a message safe to log.
///
/// Every error module of Mailwake has one such struct (`ProtocolError`,
/// `CryptoError`, `PostgresError`, `SQLiteError`, `HTTPClientError`,
/// `IMAPError`, `MessageBodyError`, `OutpostError`, `AppStoreVerificationError`):
/// the same shape, each with its own `Code`. Messages never carry a secret,
/// a key, a token, mail content or ciphertext.
public protocol CodedError: Error, Sendable, CustomStringConvertible {
    associatedtype Code: ErrorCode
    /// What failed, for programs.
    var code: Code { get }
    /// What failed, for people.
    var message: String { get }
}

extension CodedError {
    /// `code: message`, unless the error says more (a driver's result code).
    public var description: String { "\(code): \(message)" }

}
