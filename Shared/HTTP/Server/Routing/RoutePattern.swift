/// A route path such as `/v1/pairings/{id}/consent`: literal segments and
/// `{name}` parameters, each matching exactly one non-empty segment.
struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    let segments: [Segment]
    let description: String

    /// Whether any segment is a `{name}` parameter.
    var hasParameters: Bool {
        segments.contains { if case .parameter = $0 { true } else { false } }
    }

    init(_ pattern: String) {
        precondition(pattern.hasPrefix("/"), "route patterns start with /")
        description = pattern
        segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { s in
            if s.hasPrefix("{"), s.hasSuffix("}") {
                let name = String(s.dropFirst().dropLast())
                precondition(!name.isEmpty, "empty parameter name in \(pattern)")
                return .parameter(name)
            }
            return .literal(String(s))
        }
    }

    /// The parameters when `path` (decoded segments) matches.
    func match(_ path: [String]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(segments, path) {
            switch segment {
            case .literal(let l):
                guard l == value else { return nil }
            case .parameter(let name):
                guard !value.isEmpty else { return nil }
                parameters[name] = value
            }
        }
        return parameters
    }
}
