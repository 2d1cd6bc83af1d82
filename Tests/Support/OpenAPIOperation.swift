import Foundation

/// One OpenAPI operation as the agreement tests read it: its security schemes and statuses.
public struct OpenAPIOperation: Sendable, Equatable {
    /// The security schemes of the operation's `security` list (any one of them
    /// admits the caller); empty when the operation is open.
    public var security: Set<String> = []
    /// The documented response status codes.
    public var statuses: Set<Int> = []

    /// The operations of the document at `path`, by `METHOD /path`.
    ///
    /// It reads the layout the project writes (the one `OpenAPIRoutes` reads):
    /// `security: [{name: []}, …]` one level under the method, `responses` as
    /// one flow mapping on its line or as a block of `"NNN":` keys one level
    /// deeper. An operation written otherwise reads as open with no statuses,
    /// which makes the agreement tests fail rather than pass.
    public static func operations(inFile path: String) throws -> [String: OpenAPIOperation] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        var inPaths = false
        var route: String?
        var current: String?
        var inResponses = false
        var out: [String: OpenAPIOperation] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("paths:") { inPaths = true; continue }
            guard inPaths else { continue }
            if !line.isEmpty, !line.hasPrefix(" ") { break }
            let indent = line.prefix { $0 == " " }.count
            let body = line.dropFirst(indent)
            if indent == 2, body.hasPrefix("/"), body.hasSuffix(":") {
                route = String(body.dropLast())
                current = nil
            } else if indent == 4, let route, let word = body.split(separator: ":").first, methods.contains(String(word)) {
                current = "\(word.uppercased()) \(route)"
                out[current!] = OpenAPIOperation()
                inResponses = false
            } else if indent == 6, let key = current {
                inResponses = false
                if body.hasPrefix("security:") {
                    out[key]!.security = names(in: String(body.dropFirst("security:".count)))
                } else if body.hasPrefix("responses:") {
                    let rest = body.dropFirst("responses:".count).trimmingCharacters(in: .whitespaces)
                    if rest.isEmpty { inResponses = true } else { out[key]!.statuses.formUnion(statuses(in: rest)) }
                }
            } else if indent == 8, inResponses, let key = current {
                out[key]!.statuses.formUnion(statuses(in: String(body.prefix { $0 != ":" }) + ":"))
            }
        }
        return out
    }

    /// The scheme names of a flow list `[{a: []}, {b: []}]`.
    static func names(in flow: String) -> Set<String> {
        let regex = try! NSRegularExpression(pattern: #"\{\s*([A-Za-z0-9_]+)\s*:"#)
        let range = NSRange(flow.startIndex..., in: flow)
        return Set(regex.matches(in: flow, range: range).compactMap { Range($0.range(at: 1), in: flow).map { String(flow[$0]) } })
    }

    /// The status keys (`"204":`) of a flow mapping or of one block key.
    static func statuses(in flow: String) -> Set<Int> {
        let regex = try! NSRegularExpression(pattern: #""([1-5][0-9][0-9])"\s*:"#)
        let range = NSRange(flow.startIndex..., in: flow)
        return Set(regex.matches(in: flow, range: range).compactMap { Range($0.range(at: 1), in: flow).flatMap { Int(flow[$0]) } })
    }
}
