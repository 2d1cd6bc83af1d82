import MailwakeHTTPTypes

/// A router's routes with their middleware composed: routes one request and
/// maps every error its handler throws to a response.
///
/// The server asks it for every request; tests run it without a socket
/// (`MailwakeHTTPTesting`), so both see the same routing and the same problems.
public struct RouterResponder: Sendable {
    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: RoutePattern
        let handler: HTTPHandler
    }

    /// The result of routing one request.
    enum Resolution: Sendable {
        case found(handler: HTTPHandler, parameters: [String: String], route: String)
        case methodNotAllowed(allowed: [HTTPMethod], route: String)
        case notFound
        case badPath
    }

    let routes: [Route]
    /// What `resolve` answers for each route path without parameters, by method: a request whose path is
    /// exactly such a text (no percent escapes) is routed by one look-up, to what the full match would find.
    private let staticResolutions: [HTTPMethod: [String: Resolution]]
    /// The inline handlers, by method and literal path.
    private let inlineHandlers: [HTTPMethod: [String: InlineHandler]]

    init(routes: [Route], inline: [Router.InlineRoute] = []) {
        self.routes = routes
        var handlers: [HTTPMethod: [String: InlineHandler]] = [:]
        for route in inline { handlers[route.method, default: [:]][route.path] = route.handler }
        inlineHandlers = handlers
        var index: [HTTPMethod: [String: Resolution]] = [:]
        for route in routes where !route.pattern.hasParameters {
            let path = route.pattern.description
            index[route.method, default: [:]][path] = Self.resolveByMatching(routes, method: route.method, rawPath: Substring(path))
        }
        self.staticResolutions = index
    }

    /// Routes `request` and runs its handler; `context` gains the route, its parameters and what middleware added.
    ///
    /// An ``HTTPResponseError`` becomes its own response, cancellation a 503, anything else a 500 whose
    /// body names nothing of the error (the log line does).
    public func respond(to request: HTTPRequest, context: inout RequestContext) async -> HTTPResponse {
        switch resolve(method: request.method, rawPath: request.rawPath) {
        case .found(let handler, let parameters, let route):
            context.parameters = parameters
            context.route = route
            do {
                return try await handler(request, context)
            } catch {
                return response(for: error, context: context)
            }
        case .methodNotAllowed(let allowed, let route):
            context.route = route
            return HTTPError(.methodNotAllowed, code: .methodNotAllowed, detail: "\(request.method) is not allowed here",
                             headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")]).response(requestID: context.requestID)
        case .notFound:
            return HTTPError(.notFound, code: .notFound, detail: "no such resource").response(requestID: context.requestID)
        case .badPath:
            return HTTPError(.badRequest, code: .badPath,
                             detail: "the request path is not valid percent-encoded UTF-8").response(requestID: context.requestID)
        }
    }

    /// The response a handler's `error` maps to: an ``HTTPResponseError``'s own, 503 for cancellation, 500 otherwise.
    public func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        switch error {
        case let error as any HTTPResponseError:
            return error.response(requestID: context.requestID)
        case is CancellationError:
            return HTTPError(.serviceUnavailable, code: .cancelled,
                             detail: "the request was cancelled").response(requestID: context.requestID)
        default:
            context.logger.error("handler failed", ["route": .string(context.route), "error": .string(String(describing: type(of: error))),
                                                     "reason": .string(String(describing: error))])
            return HTTPError(.internalServerError, code: .internalError,
                             detail: "the server failed to handle the request").response(requestID: context.requestID)
        }
    }

    /// Offers `request` to the inline handler of its exact method and path, if it has one.
    ///
    /// - Parameters:
    ///   - context: the request's context; the handler and `answer` see it with the route set.
    ///   - willOffer: runs just before the handler (the server arms the request's deadline there: the handler may answer at once).
    ///   - answer: gets the handler's answer, its error already mapped as a handler's is, once.
    /// - Returns: false when there is no inline handler or it declined the request (`answer` is then never called).
    public func offerInline(_ request: HTTPRequest, context: RequestContext, willOffer: () -> Void = {},
                            answer: @escaping @Sendable (HTTPResponse, RequestContext) -> Void) -> Bool {
        guard let handler = inlineHandlers[request.method]?[String(request.rawPath)] else { return false }
        var routed = context
        routed.route = String(request.rawPath)
        let offered = routed
        let reply = InlineReply { [self] result in
            switch result {
            case .success(let response): answer(response, offered)
            case .failure(let error): answer(response(for: error, context: offered), offered)
            }
        }
        willOffer()
        return handler(request, offered, reply)
    }

    func resolve(method: HTTPMethod, rawPath: Substring) -> Resolution {
        if let byPath = staticResolutions[method], !rawPath.utf8.contains(UInt8(ascii: "%")),
           let resolution = byPath[String(rawPath)] {
            return resolution
        }
        return Self.resolveByMatching(routes, method: method, rawPath: rawPath)
    }

    /// Decodes the path's segments and takes the first route that matches them with this method.
    private static func resolveByMatching(_ routes: [Route], method: HTTPMethod, rawPath: Substring) -> Resolution {
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
                return .found(handler: route.handler, parameters: parameters, route: route.pattern.description)
            }
            allowed.append(route.method)
            matchedRoute = route.pattern.description
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed, route: matchedRoute)
    }
}
