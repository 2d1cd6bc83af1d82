import AccountsService
import MailwakeCore
import Testing

/// The accounts service's bearer tokens refuse placeholders and short values at start.
@Suite struct TokenSettingsTests {
    static let required = ["MAILWAKE_ACCOUNTS_PUBLIC_ORIGIN": "https://accounts.example.net",
                           "MAILWAKE_ACCOUNTS_DATABASE_URL": "postgres://accounts@127.0.0.1/accounts"]
    static let good = "0123456789abcdef0123456789abcdef0123456789abcdef"

    static func load(_ overrides: [String: String]) throws -> AccountsConfiguration {
        try AccountsConfiguration(AccountsSettings.spec.load(environment: required.merging(overrides) { $1 }))
    }

    func refusal(_ key: String, _ value: String) -> ConfigurationError? {
        do {
            _ = try Self.load([key: value])
            return nil
        } catch let e as ConfigurationError {
            return e
        } catch {
            return nil
        }
    }

    @Test(arguments: ["MAILWAKE_ACCOUNTS_SERVICE_TOKENS", "MAILWAKE_ACCOUNTS_OPERATOR_TOKEN"])
    func theTemplatesPlaceholderAndAShortTokenAreRefused(_ key: String) throws {
        let placeholder = try #require(refusal(key, "CHANGE-ME-a-long-random-token"))
        #expect(placeholder.description == "configuration: \(key) (environment): still holds the CHANGE-ME placeholder: replace it with " +
                                           "a random token, e.g. `openssl rand -hex 24`")
        let short = try #require(refusal(key, "smoke-token"))
        #expect(short.description == "configuration: \(key) (environment): is shorter than 24 characters: use a random token, e.g. " +
                                     "`openssl rand -hex 24`")
        #expect(!placeholder.description.contains("long-random") && !short.description.contains("smoke"))
    }

    @Test func oneBadServiceTokenAmongGoodOnesIsNamedByPosition() throws {
        let e = try #require(refusal("MAILWAKE_ACCOUNTS_SERVICE_TOKENS", "\(Self.good),change-me-please-0123456789abcdef"))
        #expect(e.reason.hasPrefix("token 2 of 2 still holds the CHANGE-ME placeholder"))
        #expect(!e.description.contains(Self.good))
    }

    @Test func longTokensAreAcceptedAndEmptyMeansNone() throws {
        let c = try Self.load(["MAILWAKE_ACCOUNTS_SERVICE_TOKENS": "\(Self.good),\(Self.good.uppercased())",
                               "MAILWAKE_ACCOUNTS_OPERATOR_TOKEN": Self.good])
        #expect(c.serviceTokens == [Self.good, Self.good.uppercased()] && c.operatorToken == Self.good)
        let none = try Self.load([:])
        #expect(none.serviceTokens == [] && none.operatorToken == "")
    }
}
