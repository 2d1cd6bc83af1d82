import MailwakeMail
import Testing

@Suite("Mail: the visible text of an HTML part")
struct HTMLVisibleTextTests {
    @Test func aHeaderElementIsTextNotTheDocumentHead() {
        let text = HTMLVisibleText.of("<html><head><title>Sign in</title></head><body><header>Acme</header><p>Your code is " +
                                      "640017</p></body></html>")
        #expect(text.contains("Your code is 640017"))
        #expect(text.contains("Acme"))
        #expect(!text.contains("Sign in"), "the head's title is not visible text")
    }

    @Test func characterReferencesAreDecodedOnce() {
        #expect(HTMLVisibleText.of("<p>a &amp;lt; b &lt; c &#x41;</p>").contains("a &lt; b < c A"))
    }

    @Test func scriptsAndStylesContributeNothing() {
        let text = HTMLVisibleText.of("<style>p{color:red}</style><script>var code='111111'</script><p>Code: 222222</p>")
        #expect(!text.contains("color") && !text.contains("111111"))
        #expect(text.contains("222222"))
    }

    @Test func blocksEndLines() {
        #expect(HTMLVisibleText.of("<div>one</div><div>two</div>").split(separator: "\n").map(String.init) == ["one", "two"])
    }

    @Test func nestingBeyondTheLimitIsReadWithTagsStripped() {
        let deep = String(repeating: "<div>", count: 50) + "Code 123456" + String(repeating: "</div>", count: 50)
        let text = HTMLVisibleText.of(deep, maxDepth: 10)
        #expect(text.contains("Code 123456"))
    }
}
