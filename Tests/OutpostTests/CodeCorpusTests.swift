import Foundation
import MailwakeMail
@testable import OutpostService
import TestSupport
import Testing

@Suite("Outpost: verification codes in whole messages")
struct CodeCorpusTests {
    struct Expected: Decodable {
        var file: String
        var lang: String
        var expected: String?
    }

    @Test func precisionAndRecallOverTheMessageCorpus() throws {
        let manifest = try JSONDecoder().decode([Expected].self,
                                                from: Data(contentsOf: RepositoryPaths.file("Tests/Fixtures/codes/expected.json")))
        #expect(manifest.count >= 150)
        var tally = PrecisionRecall()
        for m in manifest {
            let summary = try MessageSummary(rfc822: try RepositoryPaths.bytes("Tests/Fixtures/codes/messages/\(m.file)"))
            tally.record(found: CodeDetector.detect(subject: summary.subject, body: summary.visibleText)?.value, expected: m.expected,
                         label: m.file)
        }
        let (precision, recall) = (tally.precision, tally.recall)
        print("code corpus: \(manifest.count) messages, precision \(precision), recall \(recall)")
        #expect(precision >= 0.99, "\(tally.report)")
        #expect(recall >= 0.97, "\(tally.report)")
        #expect(Set(manifest.map(\.lang)).count == 10)
    }

    @Test func precisionAndRecallOverTheCorpusWrittenBlindToTheDetector() throws {
        let manifest = try JSONDecoder().decode([Expected].self,
                                                from: Data(contentsOf: RepositoryPaths.file("Tests/Fixtures/codes/unseen/expected.json")))
        #expect(manifest.count >= 250)
        var tally = PrecisionRecall()
        var byLanguage: [String: PrecisionRecall] = [:]
        for m in manifest {
            let summary = try MessageSummary(rfc822: try RepositoryPaths.bytes("Tests/Fixtures/codes/unseen/messages/\(m.file)"))
            let found = CodeDetector.detect(subject: summary.subject, body: summary.visibleText)?.value
            tally.record(found: found, expected: m.expected, label: "[\(m.lang)] \(m.file)")
            byLanguage[m.lang, default: PrecisionRecall()].record(found: found, expected: m.expected, label: m.file)
        }
        print("unseen code corpus: \(manifest.count) messages, precision \(tally.precision), recall \(tally.recall)")
        print(byLanguage.sorted { $0.key < $1.key }.map { "\($0.key) p=\($0.value.precision) r=\($0.value.recall)" }
            .joined(separator: ", "))
        #expect(tally.precision >= 0.99, "\(tally.report)")
        #expect(tally.recall >= 0.97, "\(tally.report)")
        #expect(Set(manifest.map(\.lang)).count >= 20)
    }
}
