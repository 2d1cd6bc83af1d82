public import MailwakeHTTPTypes

/// Maps method and path to a handler, Hummingbird style:
///
/// ```swift
/// var router = Router()
/// router.add(middleware: DatabaseUnavailableMiddleware())
/// router.group("/internal/v1", middleware: [ServiceTokenMiddleware(gate)]) { internal in
///     internal.get("/devices/{id}/authorization") { request, context in … }
/// }
/// ```
///
/// Router middleware wraps every route, outermost first; a group's middleware
/// wraps only its routes, inside the router's. The chains are composed once,
/// when the server (or a test) takes the router's ``responder()``.
/// Unknown paths answer 404, known paths with another method 405 with `Allow`.
public struct Router: Sendable {
    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: RoutePattern
        let handler: HTTPHandler
        /// The middleware of the groups the route was added in, outermost first.
        let groupMiddleware: [any HTTPMiddleware]
    }

    struct InlineRoute: Sendable {
        let method: HTTPMethod
        let path: String
        let handler: InlineHandler
    }

    private(set) var routes: [Route] = []
    private(set) var middleware: [any HTTPMiddleware] = []
    private(set) var inlineRoutes: [InlineRoute] = []

    public init() {}

    /// Adds middleware around every route (outermost first), whenever the route was added.
    public mutating func add(middleware m: any HTTPMiddleware) { middleware.append(m) }

    /// Adds a route. Patterns are literal segments and `{name}` parameters.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, handler: @escaping HTTPHandler) {
        add(Route(method: method, pattern: RoutePattern(pattern), handler: handler, groupMiddleware: []))
    }

    /// Adds the routes `build` adds to a group under `prefix`, each wrapped in `middleware` (outermost first).
    ///
    /// - Parameters:
    ///   - prefix: prepended to every pattern of the group (`""` for none; starts with `/` otherwise).
    ///   - middleware: runs after the router's middleware and before the handler, for this group's routes only.
    ///   - build: adds the routes (and nested groups).
    public mutating func group(_ prefix: String = "", middleware: [any HTTPMiddleware] = [],
                               _ build: (inout RouterGroup) throws -> Void) rethrows {
        var group = RouterGroup(prefix: prefix, middleware: middleware)
        try build(&group)
        for route in group.routes { add(route) }
    }

    public mutating func get(_ pattern: String, handler: @escaping HTTPHandler) { add(.get, pattern, handler: handler) }
    public mutating func post(_ pattern: String, handler: @escaping HTTPHandler) { add(.post, pattern, handler: handler) }
    public mutating func put(_ pattern: String, handler: @escaping HTTPHandler) { add(.put, pattern, handler: handler) }
    public mutating func patch(_ pattern: String, handler: @escaping HTTPHandler) { add(.patch, pattern, handler: handler) }
    public mutating func delete(_ pattern: String, handler: @escaping HTTPHandler) { add(.delete, pattern, handler: handler) }

    /// Adds an inline handler in front of the ordinary route for `method` and `path` (a literal path, no parameters).
    ///
    /// The server offers a request whose path is exactly `path` to `handler` on its I/O thread first
    /// (see ``InlineHandler``); what it declines goes to the ordinary route, which must be added too.
    public mutating func inline(_ method: HTTPMethod, _ path: String, handler: @escaping InlineHandler) {
        precondition(!RoutePattern(path).hasParameters && !path.contains("%"), "inline routes are literal paths")
        precondition(!inlineRoutes.contains { $0.method == method && $0.path == path }, "inline route \(method) \(path) added twice")
        inlineRoutes.append(InlineRoute(method: method, path: RoutePattern(path).description, handler: handler))
    }

    /// Every route as `METHOD /pattern`, for OpenAPI agreement tests.
    public var routeList: [String] { routes.map { "\($0.method.rawValue) \($0.pattern.description)" } }

    /// The routes with their middleware chains composed, ready to answer requests.
    public func responder() -> RouterResponder {
        for inline in inlineRoutes {
            precondition(routes.contains { $0.method == inline.method && $0.pattern.description == inline.path },
                         "inline route \(inline.method) \(inline.path) has no ordinary route to decline to")
        }
        return RouterResponder(routes: routes.map { route in
            RouterResponder.Route(method: route.method, pattern: route.pattern,
                                  handler: Self.compose(middleware + route.groupMiddleware, around: route.handler))
        }, inline: inlineRoutes)
    }

    private mutating func add(_ route: Route) {
        precondition(!routes.contains { $0.method == route.method && $0.pattern == route.pattern },
                     "route \(route.method) \(route.pattern) added twice")
        routes.append(route)
    }

    private static func compose(_ middleware: [any HTTPMiddleware], around handler: @escaping HTTPHandler) -> HTTPHandler {
        var next = handler
        for m in middleware.reversed() {
            let inner = next
            next = { request, context in try await m.handle(request, context: context, next: inner) }
        }
        return next
    }
}
