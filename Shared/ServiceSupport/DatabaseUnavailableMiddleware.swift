public import MailwakeHTTPServer
public import MailwakePostgres
import MailwakeHTTPTypes

/// Answers 503 `database-unavailable` with `Retry-After` when a handler fails
/// because PostgreSQL cannot be reached (restarting, failing over, pool
/// exhausted, a read-only standby answering for a failed primary), instead of a bare 500: the caller's request was not applied
/// and may be sent again.
public struct DatabaseUnavailableMiddleware: HTTPMiddleware {
    public var retryAfterSeconds: Int

    public init(retryAfterSeconds: Int = 1) { self.retryAfterSeconds = retryAfterSeconds }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPHandler) async throws -> HTTPResponse {
        do {
            return try await next(request, context)
        } catch {
            throw problem(for: error, context: context) ?? error
        }
    }

    /// The 503 an unavailable database answers (logged), or nil for any other error.
    ///
    /// Inline handlers, which no middleware wraps, map their errors with it too.
    public func problem(for error: any Error, context: RequestContext) -> HTTPError? {
        guard let error = error as? PostgresError, error.isUnavailability else { return nil }
        context.logger.warning("database unavailable", ["error": .string(error.description)])
        return HTTPError(.serviceUnavailable, code: .databaseUnavailable,
                         detail: "storage is briefly unavailable; send the request again",
                         headers: ["Retry-After": String(retryAfterSeconds)])
    }
}

extension PostgresError {
    /// The server is down, restarting, unreachable or read-only (a standby
    /// not yet promoted), or the pool gave up waiting: nothing was applied and the same request may succeed later.
    public var isUnavailability: Bool {
        switch code {
        case .connection, .timeout, .poolClosed: return true
        case .server:
            return [SQLState.adminShutdown, SQLState.crashShutdown, SQLState.cannotConnectNow,
                    SQLState.readOnlySQLTransaction].contains(sqlState ?? "")
        default: return false
        }
    }
}
