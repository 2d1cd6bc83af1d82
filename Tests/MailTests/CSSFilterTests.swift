import Testing
@testable import MailwakeMail

struct CSSFilterTests {
    @Test func layoutDeclarationsAreKeptNormalized() {
        #expect(CSSFilter.declarations("Color: #333; PADDING : 4px 8px ;font-weight:bold") == "color:#333;padding:4px " +
                                                                                              "8px;font-weight:bold")
    }

    @Test func unknownPropertiesAndPositioningAreDropped() {
        #expect(CSSFilter.declarations("position:fixed;top:0;z-index:9;color:red") == "color:red")
    }

    @Test(arguments: ["url(x)", "URL(x)", "expression(alert(1))", "u\\72l(x)", "var(--x)", "image-set('a' 1x)", "attr(title)",
                      "red;x", "'unbalanced", "calc(1px", "foo(1)", "<b>", "}", "rgb(1,2,3) url(x)", "-moz-binding"])
    func unsafeValuesAreRejected(_ value: String) {
        #expect(!CSSFilter.isSafeValue(value))
    }

    @Test(arguments: ["#fff", "rgb(0, 0, 0)", "rgba(0,0,0,.5)", "calc(100% - 20px)", "12px/1.4 'Helvetica Neue', Arial, sans-serif",
                      "1px solid #e8eaed", "100% !important", "0 auto"])
    func plainValuesAreAccepted(_ value: String) {
        #expect(CSSFilter.isSafeValue(value))
    }

    @Test func commentsCannotSplitAForbiddenWord() {
        #expect(CSSFilter.declarations("width:expr/**/ession(alert(1))") == "")
        #expect(CSSFilter.declarations("color:red/* unterminated") == "color:red")
    }

    @Test func stylesheetsKeepRulesAndMediaOnly() {
        let css = "@import url(x.css); @charset 'utf-8'; p{color:red;background:url(x)} @font-face{src:url(f)} @media " +
                  "(max-width:600px){.a{width:100%}} a\\62{color:red} .b{}"
        #expect(CSSFilter.stylesheet(css) == "p{color:red}@media (max-width:600px){.a{width:100%}}")
    }

    @Test func nestedMediaInsideMediaIsDropped() {
        #expect(CSSFilter.stylesheet("@media screen{@media print{p{color:red}} q{color:blue}}") == "@media screen{q{color:blue}}")
    }
}
