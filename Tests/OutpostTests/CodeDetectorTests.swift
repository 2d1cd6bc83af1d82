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
        var tally = PrecisionRecall()
        for c in cases {
            tally.record(found: CodeDetector.detect(subject: c.subject, body: c.body)?.value, expected: c.expected, label: "[\(c.lang)] \(c.subject)")
        }
        let (precision, recall) = (tally.precision, tally.recall)
        print("codes: \(cases.count) cases, precision \(precision), recall \(recall)")
        #expect(precision >= 0.97, "\(tally.report)")
        #expect(recall >= 0.90, "\(tally.report)")
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
