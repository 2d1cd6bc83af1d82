public import MailwakeCore

/// The OAuth 2 clients `mailbox add --oauth` uses (`MAILWAKE_OUTPOST_OAUTH_*`):
/// the ids the operator registered, and endpoints a private or test
/// authorization server overrides.
public enum OAuthSettings {
    public static let googleClientID = ConfigurationSetting<String>.string("OAUTH_GOOGLE_CLIENT_ID", default: "", allowEmpty: true,
                                                                           help: "Client id of the Desktop app registered in Google " +
                                                                                 "Cloud Console for Gmail (`mailbox add --provider " +
                                                                                 "gmail --oauth`).")
    public static let googleClientSecret = ConfigurationSetting<String>.string("OAUTH_GOOGLE_CLIENT_SECRET", default: "", secret: true,
                                                                               allowEmpty: true,
                                                                               help: "The client secret Google issues with a Desktop " +
                                                                                     "app client id (sent with it; Google does not " +
                                                                                     "treat it as confidential for installed apps).")
    public static let googleAuthorizationURL = ConfigurationSetting<String>.string("OAUTH_GOOGLE_AUTHORIZATION_URL",
                                                                                   default: "https://accounts.google.com/o/oauth2/v2/auth",
                                                                                   help: "Google's authorization endpoint (the URL " +
                                                                                         "printed for the browser).")
    public static let googleTokenURL = ConfigurationSetting<String>.string("OAUTH_GOOGLE_TOKEN_URL",
                                                                           default: "https://oauth2.googleapis.com/token",
                                                                           help: "Google's token endpoint.")
    public static let microsoftClientID = ConfigurationSetting<String>.string("OAUTH_MICROSOFT_CLIENT_ID", default: "", allowEmpty: true,
                                                                              help: "Application (client) id of the public client " +
                                                                                    "registered in Microsoft Entra with device code " +
                                                                                    "flow allowed (`mailbox add --provider outlook " +
                                                                                    "--oauth`).")
    public static let microsoftTenant = ConfigurationSetting<String>.string("OAUTH_MICROSOFT_TENANT", default: "common",
                                                                            help: "The Microsoft Entra tenant: common, consumers " +
                                                                                  "(Outlook.com only), organizations, or a tenant id.")
    public static let microsoftDeviceURL = ConfigurationSetting<String>.string(
        "OAUTH_MICROSOFT_DEVICE_URL", default: "", allowEmpty: true,
        help: "Microsoft's device authorization endpoint; empty: https://login.microsoftonline.com/<tenant>/oauth2/v2.0/devicecode.")
    public static let microsoftTokenURL = ConfigurationSetting<String>.string(
        "OAUTH_MICROSOFT_TOKEN_URL", default: "", allowEmpty: true,
        help: "Microsoft's token endpoint; empty: https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token.")
    public static let caFile = ConfigurationSetting<String>.existingFile("OAUTH_CA_FILE",
                                                                         help: "A PEM CA bundle trusted for the OAuth endpoints instead " +
                                                                               "of the system's (a private authorization " +
                                                                               "server).").optional()

    public static let all: [any AnyConfigurationSetting] = [googleClientID, googleClientSecret, googleAuthorizationURL, googleTokenURL,
                                                            microsoftClientID, microsoftTenant, microsoftDeviceURL, microsoftTokenURL,
                                                            caFile]

    /// The endpoints for `provider` ("gmail" or "outlook") from `configuration`; nil for a provider without built-in OAuth.
    public static func endpoints(provider: String, _ configuration: ServiceConfiguration) -> OAuthEndpoints? {
        let ca = configuration[caFile]
        switch provider {
        case "gmail":
            let secret = configuration[googleClientSecret]
            var e = OAuthEndpoints.google(clientID: configuration[googleClientID], clientSecret: secret.isEmpty ? nil : secret)
            e.authorizationURL = configuration[googleAuthorizationURL]
            e.tokenURL = configuration[googleTokenURL]
            e.caFile = ca
            return e
        case "outlook":
            var e = OAuthEndpoints.microsoft(clientID: configuration[microsoftClientID], tenant: configuration[microsoftTenant])
            if !configuration[microsoftDeviceURL].isEmpty { e.deviceAuthorizationURL = configuration[microsoftDeviceURL] }
            if !configuration[microsoftTokenURL].isEmpty { e.tokenURL = configuration[microsoftTokenURL] }
            e.caFile = ca
            return e
        default:
            return nil
        }
    }
}
