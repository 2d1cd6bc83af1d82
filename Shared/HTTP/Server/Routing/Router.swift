public import MailwakeHTTPTypes

/// Maps method and path to a handler, Hummingbird style:
///
/// ```swift
/// var router = Router()
/// router.add(middleware: RequireSignature())
/// router.post("/v1/pairings/{id}/consent") { request, context in … }
/// ```
///
/// Unknown paths answer 404, known paths with another method 405 with `Allow`.
public struct Router: Sendable {
    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: RoutePattern
        let handler: HTTPHandler
    }

    private(set) var routes: [Route] = []
    private(set) var middleware: [any HTTPMiddleware] = []

    public init() {}

    /// Adds middleware around every route (outermost first).
    public mutating func add(middleware m: any HTTPMiddleware) { middleware.append(m) }

    /// Adds a route. Patterns are literal segments and `{name}` parameters.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, handler: @escaping HTTPHandler) {
        let p = RoutePattern(pattern)
        precondition(!routes.contains { $0.method == method && $0.pattern == p }, "route \(method) \(pattern) added twice")
        routes.append(Route(method: method, pattern: p, handler: handler))
    }

    public mutating func get(_ pattern: String, handler: @escaping HTTPHandler) { add(.get, pattern, handler: handler) }
    public mutating func post(_ pattern: String, handler: @escaping HTTPHandler) { add(.post, pattern, handler: handler) }
    public mutating func put(_ pattern: String, handler: @escaping HTTPHandler) { add(.put, pattern, handler: handler) }
    public mutating func patch(_ pattern: String, handler: @escaping HTTPHandler) { add(.patch, pattern, handler: handler) }
    public mutating func delete(_ pattern: String, handler: @escaping HTTPHandler) { add(.delete, pattern, handler: handler) }

    /// Every route as `METHOD /pattern`, for OpenAPI agreement tests.
    public var routeList: [String] { routes.map { "\($0.method.rawValue) \($0.pattern.description)" } }

    /// The result of routing one request.
    enum Resolution {
        case found(handler: HTTPHandler, parameters: [String: String], route: String)
        case methodNotAllowed(allowed: [HTTPMethod], route: String)
        case notFound
        case badPath
    }

    func resolve(method: HTTPMethod, rawPath: Substring) -> Resolution {
        var segments: [String] = []
        for raw in rawPath.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = PercentDecoding.decode(raw), !decoded.contains("/") else { return .badPath }
            segments.append(decoded)
        }
        var allowed: [HTTPMethod] = []
        var matchedRoute = ""
        for route in routes {
            guard let parameters = route.pattern.match(segments) else { continue }
            if route.method == method {
                return .found(handler: wrap(route.handler), parameters: parameters, route: route.pattern.description)
            }
            allowed.append(route.method)
            matchedRoute = route.pattern.description
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed, route: matchedRoute)
    }

    private func wrap(_ handler: @escaping HTTPHandler) -> HTTPHandler {
        var next = handler
        for m in middleware.reversed() {
            let inner = next
            next = { request, context in try await m.handle(request, context: context, next: inner) }
        }
        return next
    }
}
