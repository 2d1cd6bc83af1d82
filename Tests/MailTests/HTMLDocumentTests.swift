@testable import MailwakeMail
import Testing

/// The parse tree as Swift values: what gumbo built, copied before gumbo's tree is freed.
@Suite("Mail: the HTML document tree")
struct HTMLDocumentTests {
    @Test func theTreeHasTheImpliedElementsTextAndAttributes() throws {
        let document = try #require(HTMLDocument(Array("<p class=\"a&amp;b\" title=x>Hi &lt;you&gt;<!-- note --><svg><g/></svg>".utf8)))
        guard document.children.count == 1, case .element(let html) = document.nodes[document.children.lowerBound] else {
            Issue.record("the document holds one html element")
            return
        }
        #expect(html.name == "html" && html.isHTML)
        let names = html.children.compactMap { index -> String? in
            if case .element(let e) = document.nodes[index] { return e.name }
            return nil
        }
        #expect(names == ["head", "body"])
        guard case .element(let body) = document.nodes[html.children.upperBound - 1],
              case .element(let p) = document.nodes[body.children.lowerBound] else {
            Issue.record("body holds the paragraph")
            return
        }
        #expect(p.name == "p")
        #expect(p.attributes == [HTMLAttribute(name: "class", value: "a&b"), HTMLAttribute(name: "title", value: "x")])
        #expect(p.attribute("title") == "x" && p.hasAttribute("class") && !p.hasAttribute("id"))
        let kids = p.children.map { document.nodes[$0] }
        guard kids.count == 3, case .text(let text) = kids[0], case .comment = kids[1], case .element(let svg) = kids[2] else {
            Issue.record("the paragraph holds text, a comment and an svg element: \(kids)")
            return
        }
        #expect(String(decoding: text, as: UTF8.self) == "Hi <you>")
        #expect(svg.name == "svg" && !svg.isHTML)
    }

    @Test func aDeepDocumentIsCopiedWithoutRecursion() throws {
        let depth = 5_000
        let html = String(repeating: "<div>", count: depth) + "deep" + String(repeating: "</div>", count: depth)
        let document = try #require(HTMLDocument(Array(html.utf8)))
        var level = 0
        var children = document.children
        var text: [UInt8] = []
        while let first = children.first {
            switch document.nodes[first] {
            case .element(let element):
                if element.name == "div" { level += 1 }
                children = element.name == "html" ? element.children.suffix(1) : element.children
            case .text(let bytes):
                text = bytes
                children = 0..<0
            default:
                children = 0..<0
            }
        }
        #expect(level == depth)
        #expect(text == Array("deep".utf8))
    }
}
