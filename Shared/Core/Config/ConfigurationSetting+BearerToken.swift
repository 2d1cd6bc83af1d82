extension ConfigurationSetting where Value == String {
    /// A bearer token (secret, `<KEY>_FILE` allowed), checked by `BearerTokenPolicy`.
    ///
    /// Required, unless `emptyDisables`: then the default is empty and an
    /// empty value turns off what the token guards.
    public static func bearerToken(_ name: String, emptyDisables: Bool = false, help: String) -> Self {
        let description = "bearer token of \(BearerTokenPolicy.minimumLength)+ characters" + (emptyDisables ? ", or empty" : "")
        return Self(name: name, help: help, valueDescription: description, isSecret: true,
                    fallback: emptyDisables ? .raw("") : .required) { (raw: String) throws(ConfigurationValueError) -> String in
            if raw.isEmpty {
                guard emptyDisables else { throw ConfigurationValueError("must not be empty") }
                return raw
            }
            try BearerTokenPolicy.check(raw)
            return raw
        }
    }
}

extension ConfigurationSetting where Value == [String] {
    /// Comma-separated bearer tokens (secret), each checked by `BearerTokenPolicy`; empty means none.
    public static func bearerTokens(_ name: String, help: String) -> Self {
        Self(name: name, help: help, valueDescription: "comma-separated bearer tokens of \(BearerTokenPolicy.minimumLength)+ characters",
             isSecret: true,
             fallback: .raw("")) { (raw: String) throws(ConfigurationValueError) -> [String] in
            let tokens = raw.split(separator: ",").map { String($0.trimmingSpaces) }.filter { !$0.isEmpty }
            for (index, token) in tokens.enumerated() {
                do throws(ConfigurationValueError) {
                    try BearerTokenPolicy.check(token)
                } catch {
                    throw ConfigurationValueError(tokens.count == 1 ? error.reason : "token \(index + 1) of " +
                                                                                     "\(tokens.count) " + error.reason)
                }
            }
            return tokens
        }
    }
}
