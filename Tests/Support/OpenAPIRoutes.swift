import Foundation

/// Reads the `paths` of an OpenAPI YAML document as `METHOD /path` lines, for
/// tests that keep a service's routes and its document in agreement.
///
/// It understands the block layout the project writes (two-space indents,
/// one path per line under `paths:`, methods one level deeper); anything else
/// makes the comparison fail loudly rather than pass.
public enum OpenAPIRoutes {
    public static func routes(inFile path: String) throws -> Set<String> {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var inPaths = false
        var current: String?
        var routes = Set<String>()
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") { inPaths = true; continue }
            guard inPaths else { continue }
            if !line.isEmpty, !line.hasPrefix(" ") { break }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let current {
                let word = line.dropFirst(4).prefix { $0 != ":" }
                if methods.contains(String(word)) { routes.insert("\(word.uppercased()) \(current)") }
            }
        }
        return routes
    }
}
