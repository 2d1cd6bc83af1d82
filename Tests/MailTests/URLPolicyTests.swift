import Testing
@testable import MailwakeMail

struct URLPolicyTests {
    @Test(arguments: ["https://a.example/x", "http://a.example", "mailto:a@example.com", "tel:+491234"])
    func allowedLinksAreKept(_ url: String) {
        #expect(URLPolicy.link(url) == .keep(url))
    }

    @Test(arguments: ["javascript:alert(1)", " JAVASCRIPT:alert(1)", "java\tscript:x", "java\nscript:x", "\u{01}javascript:x",
                      "vbscript:x",
                      "data:text/html,x", "file:///etc/passwd", "//evil.example", "/relative", "#top", "https:evil", "1http://x", ""])
    func otherLinksAreDropped(_ url: String) {
        #expect(URLPolicy.link(url) == .drop)
    }

    @Test func whitespaceBrowsersIgnoreIsRemoved() {
        #expect(URLPolicy.link("  https://a.example/\tx\n ") == .keep("https://a.example/x"))
    }

    @Test func imageSourcesAreClassified() {
        #expect(URLPolicy.image("cid:part1.abc@x", maxDataBytes: 100) == .contentID("part1.abc@x"))
        #expect(URLPolicy.image("CID:a%20b", maxDataBytes: 100) == .contentID("a b"))
        #expect(URLPolicy.image("https://i.example/a.png", maxDataBytes: 100) == .remote("https://i.example/a.png"))
        #expect(URLPolicy.image("data:image/gif;base64,R0lGOD==", maxDataBytes: 100) == .keep("data:image/gif;base64,R0lGOD=="))
        #expect(URLPolicy.image("data:image/gif,R0lGOD", maxDataBytes: 100) == .drop)
        #expect(URLPolicy.image("cid:", maxDataBytes: 100) == .drop)
        #expect(URLPolicy.image("ftp://i.example/a.png", maxDataBytes: 100) == .drop)
    }
}
