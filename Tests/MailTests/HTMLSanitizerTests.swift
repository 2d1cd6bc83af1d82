import Testing
import TestSupport
@testable import MailwakeMail

struct HTMLSanitizerTests {
    func sanitize(_ html: String, _ configuration: HTMLSanitizer.Configuration = .init()) -> HTMLSanitizer.Result {
        HTMLSanitizer(configuration: configuration).sanitize(html) { "/v1/messages/part?ref=REF&cid=\($0)" }
    }

    @Test func remoteImagesAreMarkedNotLoaded() {
        let r = sanitize("<img src='https://t.example/p.gif' alt='pixel'>")
        #expect(r.html == "<img data-mw-remote-src=\"https://t.example/p.gif\" alt=\"pixel\">")
        #expect(r.remoteImages == ["https://t.example/p.gif"])
    }

    @Test func contentIDImagesPointAtThePartEndpoint() {
        let r = sanitize("<img src='cid:logo%40shop.example'>")
        #expect(r.html == "<img src=\"/v1/messages/part?ref=REF&amp;cid=logo@shop.example\" data-mw-cid=\"logo@shop.example\">")
        #expect(r.contentIDs == ["logo@shop.example"])
    }

    @Test func rasterDataImagesStayAndOthersGo() {
        #expect(sanitize("<img src='data:image/png;base64,iVBORw0KGgo='>").html == "<img src=\"data:image/png;base64,iVBORw0KGgo=\">")
        #expect(sanitize("<img src='data:image/svg+xml;base64,PHN2Zz4='>").html == "<img>")
        var small = HTMLSanitizer.Configuration()
        small.maxDataImageBytes = 16
        #expect(sanitize("<img src='data:image/png;base64,iVBORw0KGgoAAAAN'>", small).html == "<img>")
    }

    @Test func linksGetNoopenerAndANewWindow() {
        #expect(sanitize("<a href='https://shop.example/o/1' target='_self'>Order</a>").html
            == "<a href=\"https://shop.example/o/1\" rel=\"noopener noreferrer\" target=\"_blank\">Order</a>")
    }

    @Test func linksWithoutAnAllowedSchemeKeepTheirTextOnly() {
        #expect(sanitize("<a href='javascript:alert(1)'>x</a>").html == "<a>x</a>")
        #expect(sanitize("<a href='/relative'>x</a>").html == "<a>x</a>")
    }

    @Test func unknownElementsAreUnwrappedAndDangerousOnesDroppedWithContent() {
        #expect(sanitize("<custom-card><b>Hi</b></custom-card>").html == "<b>Hi</b>")
        #expect(sanitize("<p>a<iframe>b</iframe><object>c</object>d</p>").html == "<p>ad</p>")
        #expect(sanitize("<form><button>Pay</button></form>").html == "Pay")
    }

    @Test func commentsAndDoctypesDisappear() {
        #expect(sanitize("<!DOCTYPE html><!-- secret --><p>x</p>").html == "<p>x</p>")
    }

    @Test func textIsEscaped() {
        #expect(sanitize("<p>1 &lt; 2 &amp; 3 &gt; 2</p>").html == "<p>1 &lt; 2 &amp; 3 &gt; 2</p>")
        #expect(sanitize("<p title='a\"b'>x</p>").html == "<p title=\"a&quot;b\">x</p>")
    }

    @Test func preKeepsALeadingNewline() {
        let once = sanitize("<pre>\n\nline</pre>").html!
        #expect(once == "<pre>\n\nline</pre>")
        #expect(sanitize(once).html == once)
    }

    @Test func deeplyNestedDocumentsAreShownAsTextOnly() {
        let html = String(repeating: "<div>", count: 100_000) + "deep text" + String(repeating: "</div>", count: 100_000)
        let r = sanitize(html)
        #expect(r.html == nil)
        #expect(r.omittedReason?.contains("400 levels") == true)
        #expect(r.text == "deep text")
    }

    @Test func nestingBelowTheLimitIsRendered() {
        let html = String(repeating: "<div>", count: 300) + "x" + String(repeating: "</div>", count: 300)
        #expect(sanitize(html).html == html)
    }

    @Test func endTagsThatCloseNothingDoNotHideNesting() {
        // `</span>` cannot close a span under a div; the scan must not count it.
        let html = "<span>" + String(repeating: "<div></p></i>", count: 1000)
        #expect(HTMLNestingScan.depth(of: Array(html.utf8), limit: 10_000) >= 1000)
    }

    @Test func elementsBeyondTheOutputDepthAreUnwrapped() {
        var configuration = HTMLSanitizer.Configuration()
        configuration.maxDepth = 3
        // Implied-end elements are not counted by the scan, but the writer still bounds its output.
        #expect(sanitize("<table><tr><td>x</td></tr></table>", configuration).html == "<table><tbody><tr>x</tr></tbody></table>")
    }

    @Test func hugeDocumentsAreCutAtATagBoundary() {
        var configuration = HTMLSanitizer.Configuration()
        configuration.maxInputBytes = 64 * 1024
        let html = String(repeating: "<p>Paragraph of a long newsletter.</p>", count: 5000)
        let r = sanitize(html, configuration)
        #expect(r.truncated)
        #expect(r.html?.hasSuffix("</p>") == true)
        #expect(r.html!.utf8.count <= 64 * 1024)
    }

    // Seconds of CPU each (nine cases in parallel): on threads of their own, not the two of the cooperative pool.
    @Test(.offPool, arguments: [
        String(repeating: "<b>", count: 200_000),
        String(repeating: "<a href='https://x.example/'>", count: 100_000),
        String(repeating: "<table><tr><td>", count: 50_000),
        String(repeating: "<p><b><i></b></i>", count: 100_000),
        String(repeating: "<font color=red>", count: 150_000),
        String(repeating: "<svg><math>", count: 100_000),
        String(repeating: "<!--", count: 300_000),
        String(repeating: "<", count: 1_000_000),
        String(repeating: "<li><ul>", count: 100_000),
    ])
    func pathologicalDocumentsFinish(_ html: String) {
        // Bounded: either rendered or refused as too deep, never a hang or a crash.
        let r = sanitize(html)
        #expect(r.html != nil || r.omittedReason != nil)
    }

    @Test func theInertnessCheckCatchesWhatItShould() {
        let tree = SanitizedTree("<img src=x onerror=alert(1)><a href='javascript:x'>y</a><svg></svg><div " +
                                 "style='background:url(x)'></div><iframe></iframe>")
        #expect(tree.violations.contains("event handler onerror"))
        #expect(tree.violations.contains("src x"))
        #expect(tree.violations.contains("href javascript:x"))
        #expect(tree.violations.contains("foreign element svg"))
        #expect(tree.violations.contains("style contains url("))
        #expect(tree.violations.contains("element iframe"))
    }
}
