import Foundation
import MailwakeCore
import TestSupport
import Testing

/// Settings of a made-up service with the two token kinds.
enum TokenSample {
    static let required: ConfigurationSetting<String> = .bearerToken("PEER_TOKEN", help: "Token presented to the peer.")
    static let optional: ConfigurationSetting<String> = .bearerToken("OPERATOR_TOKEN", emptyDisables: true,
                                                                     help: "Operator token; empty disables.")
    static let list: ConfigurationSetting<[String]> = .bearerTokens("SERVICE_TOKENS", help: "Tokens callers present.")
    static let spec = ConfigurationSpec(service: "sample", settings: [required, optional, list])
    static let good = "0123456789abcdef0123456789abcdef0123456789abcdef"
    static let minimal = ["MAILWAKE_SAMPLE_PEER_TOKEN": good]
}

@Suite struct BearerTokenSettingTests {
    typealias S = TokenSample

    func refusal(_ environment: [String: String]) -> ConfigurationError? {
        do {
            _ = try S.spec.load(environment: S.minimal.merging(environment) { $1 })
            return nil
        } catch {
            return error
        }
    }

    @Test func aLongRandomTokenIsAccepted() throws {
        let exactly24 = "abcdefghijklmnopqrstuvwx"
        let c = try S.spec.load(environment: [
            "MAILWAKE_SAMPLE_PEER_TOKEN": exactly24, "MAILWAKE_SAMPLE_OPERATOR_TOKEN": S.good,
            "MAILWAKE_SAMPLE_SERVICE_TOKENS": " \(S.good) , \(exactly24)-second ,",
        ])
        #expect(c[S.required] == exactly24)
        #expect(c[S.optional] == S.good)
        #expect(c[S.list] == [S.good, exactly24 + "-second"])
    }

    @Test func emptyDisablesOnlyWhereDocumented() throws {
        let c = try S.spec.load(environment: S.minimal)
        #expect(c[S.optional] == "")
        #expect(c[S.list] == [])
        #expect(try S.spec.load(environment: S.minimal.merging(["MAILWAKE_SAMPLE_OPERATOR_TOKEN": ""]) { $1 })[S.optional] == "")
        #expect(refusal(["MAILWAKE_SAMPLE_PEER_TOKEN": ""])?.description == "configuration: MAILWAKE_SAMPLE_PEER_TOKEN (environment): " +
                                                                            "must not be empty")
        let missing = try #require(throws: ConfigurationError.self) { try S.spec.load(environment: [:]) }
        #expect(missing.description == "configuration: MAILWAKE_SAMPLE_PEER_TOKEN: is required and not set")
    }

    @Test(arguments: ["CHANGE-ME-a-long-random-token", "change-me-0123456789abcdef0123", "prefix-Change-Me-suffix-0123456789",
                      "CHANGE-ME"])
    func aPlaceholderIsRefusedNamingTheKeyNotTheValue(_ placeholder: String) throws {
        for key in ["PEER_TOKEN", "OPERATOR_TOKEN", "SERVICE_TOKENS"] {
            let e = try #require(refusal(["MAILWAKE_SAMPLE_\(key)": placeholder]))
            #expect(e.key == "MAILWAKE_SAMPLE_\(key)")
            #expect(e.description == "configuration: MAILWAKE_SAMPLE_\(key) (environment): still holds the CHANGE-ME placeholder: " +
                                     "replace it with a random token, e.g. `openssl rand -hex 24`")
            #expect(!e.description.contains("=\""), "the value is shown: \(e.description)")
            if placeholder != "CHANGE-ME" { #expect(!e.description.contains(placeholder)) }
        }
    }

    @Test(arguments: ["s3cr3t", "abcdefghijklmnopqrstuvw"])
    func aShortTokenIsRefused(_ short: String) throws {
        #expect(short.count < 24)
        for key in ["PEER_TOKEN", "OPERATOR_TOKEN", "SERVICE_TOKENS"] {
            let e = try #require(refusal(["MAILWAKE_SAMPLE_\(key)": short]))
            #expect(e.description == "configuration: MAILWAKE_SAMPLE_\(key) (environment): is shorter than 24 characters: use a random " +
                                     "token, e.g. `openssl rand -hex 24`")
            #expect(!e.description.contains(short) && !e.description.contains("=\""))
        }
    }

    @Test func spacesAndControlCharactersAreRefused() throws {
        for bad in ["0123456789abcdef 0123456789abcdef", "0123456789abcdef\t0123456789abcdef", "0123456789abcdef0123456789abcdé"] {
            let e = try #require(refusal(["MAILWAKE_SAMPLE_PEER_TOKEN": bad]))
            #expect(e.reason.hasPrefix("must be visible ASCII characters without spaces"))
            #expect(!e.description.contains("0123456789abcdef"))
        }
    }

    @Test func inAListTheRefusedTokenIsCountedNotShown() throws {
        let e = try #require(refusal(["MAILWAKE_SAMPLE_SERVICE_TOKENS": "\(S.good),tiny"]))
        #expect(e.description == "configuration: MAILWAKE_SAMPLE_SERVICE_TOKENS (environment): token 2 of 2 is shorter than 24 " +
                                 "characters: use a random token, e.g. `openssl rand -hex 24`")
        #expect(!e.description.contains("tiny") && !e.description.contains(S.good))
    }

    @Test func aTokenFileIsCheckedTooAndTheSettingsAreSecret() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let placeholder = try dir.write("token", "CHANGE-ME-0123456789abcdefghij\n")
        do {
            _ = try S.spec.load(environment: ["MAILWAKE_SAMPLE_PEER_TOKEN_FILE": placeholder])
            Issue.record("a placeholder in a token file was accepted")
        } catch {
            #expect(error.key == "MAILWAKE_SAMPLE_PEER_TOKEN")
            #expect(error.reason.hasPrefix("still holds the CHANGE-ME placeholder"))
        }
        let good = try dir.write("good", S.good + "\n")
        #expect(try S.spec.load(environment: ["MAILWAKE_SAMPLE_PEER_TOKEN_FILE": good])[S.required] == S.good)
        #expect(S.spec.settings.allSatisfy { $0.isSecret })
        #expect(S.spec.acceptedKeys == ["MAILWAKE_SAMPLE_PEER_TOKEN", "MAILWAKE_SAMPLE_PEER_TOKEN_FILE", "MAILWAKE_SAMPLE_OPERATOR_TOKEN",
                                        "MAILWAKE_SAMPLE_OPERATOR_TOKEN_FILE", "MAILWAKE_SAMPLE_SERVICE_TOKENS",
                                        "MAILWAKE_SAMPLE_SERVICE_TOKENS_FILE"])
    }
}
