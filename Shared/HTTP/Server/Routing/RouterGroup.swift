public import MailwakeHTTPTypes

/// Routes that share a path prefix and middleware; made by ``Router/group(_:middleware:_:)``.
///
/// Authentication lives here: a group of device routes carries the middleware
/// that verifies the device and puts it in ``RequestContext/principal``, so its
/// handlers never check it themselves.
public struct RouterGroup: Sendable {
    let prefix: String
    let middleware: [any HTTPMiddleware]
    private(set) var routes: [Router.Route] = []

    init(prefix: String, middleware: [any HTTPMiddleware]) {
        precondition(prefix.isEmpty || (prefix.hasPrefix("/") && !prefix.hasSuffix("/")),
                     "group prefixes start with / and do not end with it")
        self.prefix = prefix
        self.middleware = middleware
    }

    /// Adds a route under the group's prefix, wrapped in the group's middleware.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, handler: @escaping HTTPHandler) {
        precondition(pattern.hasPrefix("/"), "route patterns start with /")
        let full = pattern == "/" && !prefix.isEmpty ? prefix : prefix + pattern
        routes.append(Router.Route(method: method, pattern: RoutePattern(full), handler: handler, groupMiddleware: middleware))
    }

    /// Adds a nested group: its prefix follows this one's, its middleware runs inside this one's.
    public mutating func group(_ prefix: String = "", middleware inner: [any HTTPMiddleware] = [],
                               _ build: (inout RouterGroup) throws -> Void) rethrows {
        var nested = RouterGroup(prefix: self.prefix + prefix, middleware: middleware + inner)
        try build(&nested)
        routes.append(contentsOf: nested.routes)
    }

    public mutating func get(_ pattern: String, handler: @escaping HTTPHandler) { add(.get, pattern, handler: handler) }
    public mutating func post(_ pattern: String, handler: @escaping HTTPHandler) { add(.post, pattern, handler: handler) }
    public mutating func put(_ pattern: String, handler: @escaping HTTPHandler) { add(.put, pattern, handler: handler) }
    public mutating func patch(_ pattern: String, handler: @escaping HTTPHandler) { add(.patch, pattern, handler: handler) }
    public mutating func delete(_ pattern: String, handler: @escaping HTTPHandler) { add(.delete, pattern, handler: handler) }
}
