import Testing
@testable import MailwakeMail

/// A hostile message cannot restyle or hide the App's own interface: its
/// `<style>` sheets apply only inside the message's container, and links
/// lose `name` (named elements clobber the page's globals).
@Suite struct StyleScopingTests {
    private func sanitize(_ html: String) -> String {
        HTMLSanitizer().sanitize(html) { "/part/\($0)" }.html ?? ""
    }

    @Test func sheetsApplyOnlyInsideTheMessageContainer() {
        let html = sanitize("<style>.toolbar, #app-header{display:none} * {color:red} p b{font-weight:bold}</style><p>Hi <b>you</b></p>")
        #expect(html == "<div data-mw-message=\"\"><style>[data-mw-message] .toolbar,[data-mw-message] #app-header{display:none}"
            + "[data-mw-message] *{color:red}[data-mw-message] p b{font-weight:bold}</style><p>Hi <b>you</b></p></div>", "\(html)")
        let tree = SanitizedTree(html)
        #expect(tree.violations.isEmpty, "\(tree.violations)")
    }

    @Test func htmlBodyAndRootStandForTheContainer() {
        #expect(CSSFilter.scoped("body", in: "[s]") == "[s]")
        #expect(CSSFilter.scoped("html body p, :root > div", in: "[s]") == "[s] p,[s] > div")
        #expect(CSSFilter.scoped("BODY.dark p", in: "[s]") == "[s] BODY.dark p")
    }

    @Test func selectorsThatReachTheContainersSiblingsAreDropped() {
        #expect(CSSFilter.scoped("body ~ div, body+nav", in: "[s]") == nil)
        #expect(CSSFilter.scoped("body ~ div, p", in: "[s]") == "[s] p")
        let html = sanitize("<style>body ~ .app { display:none } [data-mw-message] ~ .app { display:none } " +
                            "[data-mw-message]+nav{color:red}</style><p>x</p>")
        #expect(!html.contains("<style>") && !html.contains("~") && !html.contains("+"), "\(html)")
        #expect(SanitizedTree(html).violations.isEmpty, "\(SanitizedTree(html).violations) in \(html)")
    }

    @Test func mediaBlocksAreScopedToo() {
        let html = sanitize("<style>@media (max-width: 600px) { .main { width: 100% } }</style><div class='main'>x</div>")
        #expect(html.contains("<style>@media (max-width: 600px){[data-mw-message] .main{width:100%}}</style>"), "\(html)")
    }

    @Test func aSecondPassKeepsTheContainerAndTheSelectorsAsTheyAre() {
        let once = sanitize("<head><style>body{background-color:#fff} td.amount{text-align:right}</style></head><body><p>x</p></body>")
        #expect(once.hasPrefix("<div data-mw-message=\"\"><style>[data-mw-message]{background-color:#fff}[data-mw-message] td.amount{"),
                "\(once)")
        #expect(sanitize(once) == once)
    }

    @Test func aMessageCannotForgeAContainerAroundThePage() {
        // Its own data-mw-message goes (only the sanitizer's container has it).
        let html = sanitize("<div data-mw-message><p>x</p></div>")
        #expect(html == "<p>x</p>")
    }

    @Test func withoutASheetNothingIsWrapped() {
        #expect(sanitize("<p style='color:red'>x</p>") == "<p style=\"color:red\">x</p>")
    }

    @Test func linksLoseTheirName() {
        let html = sanitize("<a name='config' href='https://example.org/'>x</a><a name=\"login\">y</a>")
        #expect(!html.contains("name="), "\(html)")
        #expect(html.contains("href=\"https://example.org/\""))
    }
}
