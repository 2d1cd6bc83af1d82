/// A handler asked for an authenticated record its route's middleware did not provide.
struct MissingPrincipal: Error, CustomStringConvertible {
    let expected: String
    let route: String
    var description: String { "route \(route) has no authentication middleware providing \(expected)" }
}
