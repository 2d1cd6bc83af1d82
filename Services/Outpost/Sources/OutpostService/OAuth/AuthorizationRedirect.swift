import Foundation

/// The parameters of an authorization response (RFC 6749 §4.1.2): the
/// redirect the browser follows, or the address a user pastes.
public enum AuthorizationRedirect {
    /// The code in `query` (an URL, a `?query` or a path with one); its `state`
    /// must be `expectedState` (RFC 6749 §10.12). An `error` (access_denied) is thrown.
    public static func code(from text: String, expectedState: String) throws(OAuthError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let query: String
        if let mark = trimmed.firstIndex(of: "?") { query = String(trimmed[trimmed.index(after: mark)...]) } else { query = trimmed }
        var components = URLComponents()
        components.percentEncodedQuery = query.split(separator: "#").first.map(String.init) ?? ""
        let items = components.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        if let error = value("error") {
            let detail = value("error_description").map { ": " + String($0.prefix(300)) } ?? ""
            throw OAuthError(error,
                             error == OAuthError.accessDenied ? "the authorization was declined at the " +
                                                                "provider\(detail)" : "the provider answered \(error)\(detail)")
        }
        guard let code = value("code"), !code.isEmpty else {
            throw OAuthError("invalid_request", "no authorization code in the redirect (expected ?code=…&state=…)")
        }
        guard value("state") == expectedState else {
            throw OAuthError("state_mismatch",
                             "the redirect's state does not match this request: refused (it may come from another request or " +
                             "another site)")
        }
        return code
    }

    /// Whether `text` carries an authorization response at all (a browser also asks for /favicon.ico).
    public static func isResponse(_ text: String) -> Bool {
        text.contains("code=") || text.contains("error=") || text.contains("state=")
    }
}
