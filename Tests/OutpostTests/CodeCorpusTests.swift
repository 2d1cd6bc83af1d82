import Foundation
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
        let manifest = try JSONDecoder().decode([Expected].self, from: Data(contentsOf: RepositoryPaths.file("Tests/Fixtures/codes/expected.json")))
        #expect(manifest.count >= 150)
        var truePositives = 0, falsePositives = 0, falseNegatives = 0
        var misses: [String] = []
        for m in manifest {
            let summary = try MessageSummary(rfc822: try RepositoryPaths.bytes("Tests/Fixtures/codes/messages/\(m.file)"))
            let found = CodeDetector.detect(subject: summary.subject, body: summary.visibleText)?.value
            switch (found, m.expected) {
            case let (f?, e?) where f == e: truePositives += 1
            case let (f?, e?): falsePositives += 1; falseNegatives += 1; misses.append("\(m.file): found \(f), expected \(e)")
            case let (f?, nil): falsePositives += 1; misses.append("\(m.file): found \(f), expected none")
            case let (nil, e?): falseNegatives += 1; misses.append("\(m.file): missed \(e)")
            case (nil, nil): break
            }
        }
        let precision = Double(truePositives) / Double(max(1, truePositives + falsePositives))
        let recall = Double(truePositives) / Double(max(1, truePositives + falseNegatives))
        print("code corpus: \(manifest.count) messages, precision \(precision), recall \(recall)")
        #expect(precision >= 0.97, "\(misses.joined(separator: "\n"))")
        #expect(recall >= 0.90, "\(misses.joined(separator: "\n"))")
        #expect(Set(manifest.map(\.lang)).count == 10)
    }
}
