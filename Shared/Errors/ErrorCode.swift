/// A stable, extensible error code: one string constant per failure, declared
/// by the module that raises it (`PostgresError.Code.timeout`, `IMAPError.Code.tls`).
///
/// Codes are for programs (retry or not, which problem to answer); messages
/// are for people. A new code is a new constant, never a new spelling of an
/// old one.
public protocol ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible where RawValue == String {
    init(rawValue: String)
}

extension ErrorCode {
    public var description: String { rawValue }
}
