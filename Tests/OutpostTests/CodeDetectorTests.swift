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
            tally.record(found: CodeDetector.detect(subject: c.subject, body: c.body)?.value, expected: c.expected,
                         label: "[\(c.lang)] \(c.subject)")
        }
        let (precision, recall) = (tally.precision, tally.recall)
        print("codes: \(cases.count) cases, precision \(precision), recall \(recall)")
        #expect(precision >= 0.99, "\(tally.report)")
        #expect(recall >= 0.97, "\(tally.report)")
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
    @Test func aCodeBeforeItsPurposeAfterAVerbIsFound() {
        #expect(CodeDetector.detect(subject: "Sign in to Acme", body: "Use 739201 to sign in to your Acme account.")?.value == "739201")
    }

    @Test func aVerbAloneInMailThatIsNotAboutSigningInTakesNothing() {
        #expect(CodeDetector.detect(subject: "Weekly digest", body: "Use 2000 points before they expire.") == nil)
    }

    @Test func aPINIsACode() {
        #expect(CodeDetector.detect(subject: "", body: "Your temporary PIN is 7731")?.value == "7731")
    }

    @Test func aWordThatEndsInAShortKeywordIsNotIt() {
        #expect(CodeDetector.detect(subject: "", body: "The spin is 4521 rpm") == nil)
        #expect(CodeDetector.detect(subject: "", body: "Штрихкод: 4600123") == nil)
    }

    @Test(arguments: [
        ("Il tuo codice di verifica è 640017", "640017"),
        ("Twój kod weryfikacyjny to 408113", "408113"),
        ("Doğrulama kodunuz: 552901", "552901"),
        ("Ο κωδικός επαλήθευσης είναι 771204", "771204"),
        ("קוד האימות שלך הוא 302118", "302118"),
        ("رمز التحقق الخاص بك هو ٤٨٢٩١٣", "482913"),
        ("आपका ओटीपी 665102 है", "665102"),
        ("Kode verifikasi Anda adalah 903311", "903311"),
        ("Mã xác minh của bạn là 118274", "118274"),
        ("รหัส OTP ของคุณคือ 660218", "660218"),
        ("Ваш код підтвердження: 730019", "730019"),
        ("640017 è il tuo codice", "640017"),
    ])
    func aCodeIsFoundInEveryLanguage(_ body: String, _ code: String) {
        #expect(CodeDetector.detect(subject: "", body: body)?.value == code)
    }

    @Test(arguments: [
        "Your zip code 94107 is outdated, please update your code preferences",
        "Your code: please check your IBAN DE89 3704 0044 0532 0130 00",
        "Use code SAVE20 at checkout",
        "Your code for flight LH1234 is on the boarding pass",
        "Il codice postale 00184 non è valido, aggiorna il tuo codice",
        "Code: card ending in 4242",
    ])
    func aNumberWithAnotherMeaningIsNotACode(_ body: String) {
        #expect(CodeDetector.detect(subject: "", body: body) == nil)
    }

    @Test func alternatingCapitalsAndDigitsAreACode() {
        #expect(CodeDetector.detect(subject: "", body: "Your code is K7Q2M9")?.value == "K7Q2M9")
    }
}
