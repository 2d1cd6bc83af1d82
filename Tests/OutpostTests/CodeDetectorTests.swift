import Foundation
@testable import OutpostService
import TestSupport
import Testing

@Suite("Outpost: verification codes")
struct CodeDetectorTests {
    struct Case: Decodable {
        var subject: String
        var body: String
        var expected: String?
        var lang: String
    }

    static func corpus() throws -> [Case] {
        try JSONDecoder().decode([Case].self, from: Data(contentsOf: RepositoryPaths.file("Tests/Fixtures/codes/cases.json")))
    }

    @Test func precisionAndRecallOverTheCorpus() throws {
        let cases = try Self.corpus()
        var truePositives = 0, falsePositives = 0, falseNegatives = 0
        var misses: [String] = []
        for c in cases {
            let found = CodeDetector.detect(subject: c.subject, body: c.body)?.value
            switch (found, c.expected) {
            case let (f?, e?) where f == e: truePositives += 1
            case let (f?, e?):
                falsePositives += 1
                falseNegatives += 1
                misses.append("[\(c.lang)] \(c.subject): found \(f), expected \(e)")
            case let (f?, nil):
                falsePositives += 1
                misses.append("[\(c.lang)] \(c.subject): found \(f), expected none")
            case let (nil, e?):
                falseNegatives += 1
                misses.append("[\(c.lang)] \(c.subject): missed \(e)")
            case (nil, nil): break
            }
        }
        let precision = Double(truePositives) / Double(max(1, truePositives + falsePositives))
        let recall = Double(truePositives) / Double(max(1, truePositives + falseNegatives))
        print("codes: \(cases.count) cases, precision \(precision), recall \(recall)")
        #expect(precision >= 0.97, "\(misses.joined(separator: "\n"))")
        #expect(recall >= 0.90, "\(misses.joined(separator: "\n"))")
        #expect(Set(cases.map(\.lang)).count == 10)
    }

    @Test func theSubjectWinsOverTheBodyAndTheKeywordIsReported() {
        let code = CodeDetector.detect(subject: "Your verification code is 111222", body: "Your verification code is 333444")
        #expect(code?.value == "111222")
        #expect(code?.source == .subject)
        #expect(code.map { CodeKeywords.all.contains($0.keyword) } == true)
    }

    @Test func fullWidthDigitsAreFolded() {
        #expect(CodeDetector.detect(subject: "", body: "验证码：１２３４５６")?.value == "123456")
    }
}
