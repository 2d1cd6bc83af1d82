import MailwakeCore
import RelayService
import Testing

/// The relay's bearer tokens refuse placeholders and short values at start.
@Suite struct TokenSettingsTests {
    static let good = "0123456789abcdef0123456789abcdef0123456789abcdef"

    func refusal(_ key: String, _ value: String) -> ConfigurationError? {
        do {
            _ = try CacheAndConfigurationTests.load([key: value])
            return nil
        } catch let e as ConfigurationError {
            return e
        } catch {
            return nil
        }
    }

    @Test(arguments: ["MAILWAKE_RELAY_ACCOUNTS_TOKEN", "MAILWAKE_RELAY_OPERATOR_TOKEN"])
    func theTemplatesPlaceholderAndAShortTokenAreRefused(_ key: String) throws {
        let placeholder = try #require(refusal(key, "CHANGE-ME-the-admin-page-password"))
        #expect(placeholder.description == "configuration: \(key) (environment): still holds the CHANGE-ME placeholder: replace it with " +
                                           "a random token, e.g. `openssl rand -hex 24`")
        let short = try #require(refusal(key, "smoke-operator-token"))
        #expect(short.description == "configuration: \(key) (environment): is shorter than 24 characters: use a random token, e.g. " +
                                     "`openssl rand -hex 24`")
        #expect(!placeholder.description.contains("admin-page") && !short.description.contains("smoke"))
    }

    @Test func longTokensAreAcceptedAndAnEmptyOperatorTokenDisablesTheOperatorPages() throws {
        let c = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_ACCOUNTS_TOKEN": Self.good,
                                                     "MAILWAKE_RELAY_OPERATOR_TOKEN": Self.good.uppercased()])
        #expect(c.accounts.token == Self.good && c.operatorToken == Self.good.uppercased())
        #expect(try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_OPERATOR_TOKEN": ""]).operatorToken == "")
        #expect(refusal("MAILWAKE_RELAY_ACCOUNTS_TOKEN", "")?.reason == "must not be empty")
    }
}
