import MailwakeAppStore
import MailwakeProtocol
import Testing

/// Accounts answers a refused StoreKit payload with the verifier's code as the problem code, so each must be registered.
@Suite("App Store: every verification code is a registered problem code")
struct ProblemCodeRegistrationTests {
    @Test func everyVerificationCodeIsRegistered() {
        for code in AppStoreVerificationError.Code.all {
            #expect(ProblemCode(registered: code.rawValue) != nil, "\(code) is missing from ProblemCode+Registry.swift")
        }
    }

    @Test func theListOfVerificationCodesHasNoRepeats() {
        #expect(Set(AppStoreVerificationError.Code.all).count == AppStoreVerificationError.Code.all.count)
    }
}
