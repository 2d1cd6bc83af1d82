import Foundation
import Testing
import TestSupport
@testable import MailwakeMail

/// Real-shaped newsletters, receipts and notifications keep their layout:
/// tables, cells, inline styles, class rules, links and images survive.
struct LayoutCorpusTests {
    static let files = ["newsletter.html", "receipt.html", "notification.html"]

    static func load(_ name: String) throws -> String {
        try String(contentsOf: RepositoryPaths.file("Tests/Fixtures/html-layout/\(name)"), encoding: .utf8)
    }

    static func sanitized(_ name: String) throws -> (original: SanitizedTree, kept: SanitizedTree, result: HTMLSanitizer.Result) {
        let html = try load(name)
        let result = XSSCorpusTests.sanitize(html)
        return (SanitizedTree(html), SanitizedTree(try #require(result.html)), result)
    }

    @Test(arguments: files)
    func tablesRowsAndCellsAreAllKept(_ name: String) throws {
        let (original, kept, _) = try Self.sanitized(name)
        for element in ["table", "tr", "td", "th", "ul", "ol", "li", "h1", "h2", "p", "a", "img", "blockquote", "pre", "strong", "b"] {
            #expect(kept.elements.filter { $0 == element }.count == original.elements.filter { $0 == element }.count,
                    "\(element) in \(name)")
        }
    }

    @Test(arguments: files)
    func keptDocumentIsInert(_ name: String) throws {
        let (_, kept, _) = try Self.sanitized(name)
        #expect(kept.violations.isEmpty, "\(kept.violations)")
    }

    @Test func inlineLayoutStylesSurvive() throws {
        let (_, kept, _) = try Self.sanitized("newsletter.html")
        let styles = kept.attributes.filter { $0.name == "style" }.map(\.value)
        for declaration in ["padding:24px 32px", "border-bottom:1px solid #e8eaed", "background-color:#1a73e8", "border-radius:4px",
                            "display:inline-block", "font-family:Arial,sans-serif", "line-height:24px", "width:100%", "height:auto"] {
            #expect(styles.contains { $0.contains(declaration) }, "\(declaration)")
        }
        #expect(kept.attributes.contains { $0.element == "table" && $0.name == "cellpadding" && $0.value == "0" })
        #expect(kept.attributes.contains { $0.element == "td" && $0.name == "valign" && $0.value == "top" })
        #expect(kept.attributes.contains { $0.element == "td" && $0.name == "width" && $0.value == "50%" })
    }

    @Test func classRulesAndMediaQueriesSurviveButFontLoadsDoNot() throws {
        let (_, kept, _) = try Self.sanitized("newsletter.html")
        let sheet = kept.stylesheets.joined()
        #expect(sheet.contains("[data-mw-message] .button a{background-color:#1a73e8;color:#ffffff;padding:12px 24px"))
        #expect(sheet.contains("@media screen and (max-width: 600px){[data-mw-message] .main{width:100% !important}"))
        #expect(sheet.contains("[data-mw-message] h1.title{font-family:Georgia, 'Times New Roman', serif"))
        #expect(!sheet.contains("font-face"))
        #expect(!sheet.contains("brand.woff2"))
    }

    @Test func bodyColourBecomesAWrapper() throws {
        let (_, kept, _) = try Self.sanitized("newsletter.html")
        #expect(kept.attributes.contains { $0.element == "div" && $0.name == "style" && $0.value.contains("background-color:#f4f4f7") })
    }

    @Test func imagesAreInlinePartsOrMarkedRemote() throws {
        let (_, kept, result) = try Self.sanitized("newsletter.html")
        #expect(result.contentIDs == ["pier@harbour.example"])
        #expect(result.remoteImages == ["https://cdn.harbour.example/logo.png", "https://cdn.harbour.example/tides.jpg",
                                        "https://track.harbour.example/open.gif?u=8f3a"])
        #expect(kept.attributes.contains { $0.name == "src" && $0.value == SanitizedTree.partPrefix + "pier%40harbour%2Eexample" })
        #expect(kept.attributes.filter { $0.name == "data-mw-remote-src" }.count == 3)
    }

    @Test func linksOpenWithoutReferrer() throws {
        let (_, kept, _) = try Self.sanitized("receipt.html")
        let links = kept.attributes.filter { $0.element == "a" && $0.name == "href" }
        #expect(links.map(\.value) == ["https://northwind.example/orders/NW-58120"])
        #expect(kept.attributes.contains { $0.element == "a" && $0.name == "rel" && $0.value == "noopener noreferrer" })
    }

    @Test func receiptKeepsItsAmountsAndDropsTheForm() throws {
        let (_, kept, result) = try Self.sanitized("receipt.html")
        #expect(kept.stylesheets.joined().contains("td.amount{text-align:right"))
        #expect(!kept.elements.contains("form") && !kept.elements.contains("button"))
        #expect(result.text.contains("Knots & Splices, 3rd ed. 2 €31.00"))
        #expect(result.text.contains("How did we do? ★★★★★"))
    }

    @Test func notificationKeepsQuotesAndCodeButNotItsScript() throws {
        let (_, _, result) = try Self.sanitized("notification.html")
        let html = try #require(result.html)
        #expect(html.contains("<pre style=\"color:#555555\">&gt; +    let end = start.saturating_add(limit);"))
        #expect(html.contains("<blockquote style=\"border-left:4px solid #dfe2e5;padding:0 1em;color:#6a737d\">"))
        #expect(!html.contains("schema.org"))
        #expect(result.text.contains("Should this clamp start too? An offset past the end panics."))
        #expect(result.text.contains("1"), "\(result.text)")
        #expect(result.text.contains("• Clamp both ends\n• Return an empty page instead of panicking"))
    }
}
