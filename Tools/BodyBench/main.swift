import Foundation
import MailwakeMail

/// `mailwake-body-bench`: how fast the outpost turns a message into the body
/// document (DESIGN.md §6): the HTML sanitizer alone in MB/s, the whole
/// document (MIME, sanitizer, text, JSON) per second for a typical 60 KB HTML
/// newsletter, and the time pathological documents take. Prints one JSON
/// object. Usage: mailwake-body-bench [--seconds S] [--fixtures DIR] [--write-message FILE]
var seconds = 3.0
var fixtures = "Tests/Fixtures/html-layout"
var writeMessage: String?
var arguments = CommandLine.arguments.dropFirst()
while let a = arguments.popFirst() {
    switch a {
    case "--seconds": seconds = Double(arguments.popFirst() ?? "") ?? seconds
    case "--fixtures": fixtures = arguments.popFirst() ?? fixtures
    case "--write-message": writeMessage = arguments.popFirst()
    default:
        FileHandle.standardError.write(Data("usage: mailwake-body-bench [--seconds S] [--fixtures DIR]\n".utf8))
        exit(2)
    }
}

/// A 60 KB newsletter: the layout fixtures' tables and styles repeated.
func newsletterHTML(targetBytes: Int, fixtures: String) -> String {
    let names = ["newsletter.html", "receipt.html", "notification.html"]
    let parts = names.compactMap { try? String(contentsOfFile: "\(fixtures)/\($0)", encoding: .utf8) }
    guard let first = parts.first else { fatalError("no fixtures in \(fixtures)") }
    let body = parts.map { p in
        p.components(separatedBy: "<body").dropFirst().first.map { "<div" + $0.components(separatedBy: "</body>")[0] + "</div>" } ?? p
    }.joined()
    let head = first.components(separatedBy: "<body")[0]
    var html = head + "<body>"
    while html.utf8.count < targetBytes { html += body }
    return html + "</body></html>"
}

func message(html: String) -> [UInt8] {
    Array("""
    From: Harbour <news@harbour.example>\r
    To: Alice <alice@example.com>\r
    Subject: The Weekly Harbour\r
    Date: Sun, 29 Nov 2026 09:00:00 +0000\r
    MIME-Version: 1.0\r
    Content-Type: text/html; charset=utf-8\r
    Content-Transfer-Encoding: quoted-printable\r
    \r
    \(quotedPrintable(html))\r

    """.utf8)
}

func quotedPrintable(_ s: String) -> String {
    var out = ""
    var line = 0
    for b in s.utf8 {
        let piece: String
        if b == 0x0A { out += "\r\n"; line = 0; continue }
        if (b >= 33 && b <= 126 && b != 61) || b == 32 { piece = String(UnicodeScalar(b)) } else { piece = String(format: "=%02X", b) }
        if line + piece.count > 75 { out += "=\r\n"; line = 0 }
        out += piece
        line += piece.count
    }
    return out
}

func measure(_ seconds: Double, _ body: () -> Void) -> (count: Int, elapsed: Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    var n = 0
    var elapsed = 0.0
    repeat {
        body()
        n += 1
        elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    } while elapsed < seconds
    return (n, elapsed)
}

let html = newsletterHTML(targetBytes: 60 * 1024, fixtures: fixtures)
let htmlBytes = Array(html.utf8)
let sanitizer = HTMLSanitizer()
let part: @Sendable (String) -> String = { "/v1/messages/part?ref=REF&cid=\($0)" }
var sink = 0
let sanitize = measure(seconds) { sink &+= sanitizer.sanitize(htmlBytes, partURL: part).html?.utf8.count ?? 0 }
let raw = message(html: html)
if let writeMessage {
    // The body-read benchmark appends this message to Dovecot and reads it back over HTTPS.
    _ = FileManager.default.createFile(atPath: writeMessage, contents: Data(raw))
    exit(0)
}
let document = measure(seconds) { sink &+= (try? BodyDocument(message: raw, partURL: part).jsonBytes.count) ?? 0 }

var pathological: [[String: Any]] = []
for (name, doc) in [
    ("nested-div-100k", String(repeating: "<div>", count: 100_000)),
    ("nested-div-399", String(repeating: "<div>", count: 399) + "x"),
    ("unclosed-b-200k", String(repeating: "<b>", count: 200_000)),
    ("misnested-formatting-100k", String(repeating: "<p><b><i></b></i>", count: 100_000)),
    ("tables-50k", String(repeating: "<table><tr><td>", count: 50_000)),
    ("svg-math-100k", String(repeating: "<svg><math>", count: 100_000)),
    ("lt-2MiB", String(repeating: "<", count: 2 << 20)),
] {
    let start = DispatchTime.now().uptimeNanoseconds
    let r = sanitizer.sanitize(Array(doc.utf8), partURL: part)
    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    pathological.append(["name": name, "bytes": doc.utf8.count, "ms": (ms * 10).rounded() / 10, "rendered": r.html != nil])
}

let result: [String: Any] = [
    "html_bytes": htmlBytes.count,
    "message_bytes": raw.count,
    "sanitizer": [
        "documents_per_second": Double(sanitize.count) / sanitize.elapsed,
        "mb_per_second": Double(sanitize.count * htmlBytes.count) / sanitize.elapsed / 1e6,
    ],
    "body_document": [
        "documents_per_second": Double(document.count) / document.elapsed,
        "mb_per_second": Double(document.count * raw.count) / document.elapsed / 1e6,
    ],
    "pathological": pathological,
    "sink": sink,
]
let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: data, as: UTF8.self))
