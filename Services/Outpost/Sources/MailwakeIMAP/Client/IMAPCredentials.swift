/// How to log in: a password (LOGIN or AUTHENTICATE PLAIN) or an OAuth 2
/// access token (AUTHENTICATE XOAUTH2, as Gmail and Outlook expect).
public enum IMAPCredentials: Sendable {
    case password(user: String, password: String)
    case oauth2(user: String, accessToken: String)

    public var user: String {
        switch self {
        case .password(let user, _), .oauth2(let user, _): user
        }
    }
}
