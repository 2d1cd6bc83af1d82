public import MailwakeCore

/// Per-request values handed to middleware and handlers.
public struct RequestContext: Sendable {
    /// A fresh id for this request, echoed in `X-Request-Id` and in every log line.
    public var requestID: String
    /// The service logger with `request_id` set.
    ///
    /// Made when first read: most requests log nothing, and adding the id copies the logger's metadata.
    public var logger: Logger {
        get { requestLogger ?? serviceLogger.with("request_id", .string(requestID)) }
        set { requestLogger = newValue }
    }
    /// The level `logger` writes from, without making it.
    public var logLevel: LogLevel { requestLogger?.level ?? serviceLogger.level }
    private var serviceLogger: Logger
    private var requestLogger: Logger?
    /// Path parameters of the matched route (`{id}` → `parameters["id"]`), decoded.
    public var parameters: [String: String]
    /// The matched route pattern (`/v1/pairings/{id}/consent`), for logs and metrics.
    public var route: String
    /// Monotonic nanoseconds (DispatchTime) when the request was complete.
    public var receivedAt: UInt64
    /// Monotonic nanoseconds after which the server answers 503 on the handler's behalf.
    public var deadline: UInt64
    /// Who the group's authentication middleware found behind the request; nil on routes without one.
    public var principal: Principal?

    /// - Parameters:
    ///   - requestID: the request's id.
    ///   - logger: the service logger; the context's `logger` adds `request_id` to it.
    public init(requestID: String, logger: Logger, parameters: [String: String] = [:], route: String = "", receivedAt: UInt64 = 0,
                deadline: UInt64 = .max) {
        self.requestID = requestID
        serviceLogger = logger
        requestLogger = nil
        self.parameters = parameters
        self.route = route
        self.receivedAt = receivedAt
        self.deadline = deadline
        principal = nil
    }

    /// The path parameter `name`, or a 404 problem when the route has none (a programming error shows as not found, never a crash).
    public func parameter(_ name: String) throws -> String {
        guard let value = parameters[name] else { throw HTTPError(.notFound, code: .notFound, detail: "no such resource") }
        return value
    }

    /// The record the authentication middleware attached, as the type the group's handlers expect.
    ///
    /// A route without that middleware is a programming error; it answers 500 (unmapped), never a crash.
    public func authenticated<Record: Sendable>(_ type: Record.Type) throws -> Record {
        guard let record = principal?.record as? Record else { throw MissingPrincipal(expected: String(describing: type), route: route) }
        return record
    }
}
