/// What a configured bearer token must be: long, visible ASCII, not a template's placeholder.
///
/// At least `minimumLength` characters, so it resists guessing, and without
/// `CHANGE-ME`, the marker the env templates ship. Refusals say what is wrong
/// and never repeat the token.
public enum BearerTokenPolicy {
    /// The fewest characters a token may have (24 random hex digits are 96 bits).
    public static let minimumLength = 24
    /// The marker templates put in values that must be replaced (compared ignoring case).
    public static let placeholder = "CHANGE-ME"
    /// How to make a good token, appended to every refusal.
    static let advice = "a random token, e.g. `openssl rand -hex 24`"

    /// Checks one token; throws the reason it is refused.
    public static func check(_ token: String) throws(ConfigurationValueError) {
        if token.uppercased().contains(placeholder) {
            throw ConfigurationValueError("still holds the \(placeholder) placeholder: replace it with \(advice)")
        }
        guard token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw ConfigurationValueError("must be visible ASCII characters without spaces (it is sent in an Authorization header): use " +
                                          "\(advice)")
        }
        guard token.utf8.count >= minimumLength else {
            throw ConfigurationValueError("is shorter than \(minimumLength) characters: use \(advice)")
        }
    }
}
