import MailwakeProtocol
import TestSupport
import Testing

/// The problem code registry: one spelling per code, every protocol code in it, and docs/problems.md listing exactly it.
@Suite("Protocol: the problem code registry")
struct ProblemCodeTests {
    @Test func everyCodeIsRegisteredOnce() {
        let spellings = ProblemCode.all.map(\.rawValue)
        #expect(Set(spellings).count == spellings.count,
                "registered twice: \(spellings.filter { s in spellings.filter { $0 == s }.count > 1 })")
    }

    @Test func protocolCodesKeepTheirSnakeCaseAndEverythingElseIsKebabCase() {
        let protocolSpellings = Set(ProtocolError.Code.all.map(\.rawValue))
        for code in ProblemCode.all {
            let pattern = protocolSpellings.contains(code.rawValue) ? /[a-z]+(_[a-z]+)*/ : /[a-z0-9]+(-[a-z0-9]+)*/
            #expect(code.rawValue.wholeMatch(of: pattern) != nil, "\(code) is spelled against its family's rule")
        }
    }

    @Test func everyProtocolErrorAnswersWithARegisteredCode() {
        for code in ProtocolError.Code.all {
            #expect(ProblemCode(registered: code.rawValue) == ProblemCode(code), "\(code) is not registered")
        }
    }

    @Test func anUnregisteredSpellingIsNotACode() {
        #expect(ProblemCode(registered: "pairing_not_found") == nil)
        #expect(ProblemCode(registered: "") == nil)
        #expect(ProblemCode(registered: "pairing-not-found") == .pairingNotFound)
    }

    @Test func theDocumentedTableListsExactlyTheRegistry() throws {
        let text = try String(contentsOf: RepositoryPaths.file("docs/problems.md"), encoding: .utf8)
        let documented = text.split(separator: "\n").compactMap { line -> String? in
            guard let match = line.firstMatch(of: /^\| `([a-z0-9_-]+)` \|/) else { return nil }
            return String(match.1)
        }
        #expect(Set(documented).count == documented.count, "a code is documented twice")
        let registered = Set(ProblemCode.all.map(\.rawValue))
        #expect(Set(documented).subtracting(registered).isEmpty,
                "documented, not registered: \(Set(documented).subtracting(registered).sorted())")
        #expect(registered.subtracting(documented).isEmpty, "registered, not documented: \(registered.subtracting(documented).sorted())")
    }
}
