import Foundation
import Testing
import TestSupport
@testable import MailwakeMail

/// The XSS and mXSS corpus (`Tests/Fixtures/xss/`) comes out inert.
/// Hundreds of synchronous sanitizer runs: on the off-pool lane, not the cooperative pool.
@Suite(.offPool) struct XSSCorpusTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        var file: String
        var line: Int
        var html: String
        var testDescription: String { "\(file):\(line)" }
    }

    static let vectors: [Vector] = {
        let directory = RepositoryPaths.file("Tests/Fixtures/xss")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".txt") }.sorted()) ?? []
        var out: [Vector] = []
        for file in files {
            let text = (try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)) ?? ""
            for (index, line) in text.split(separator: "\n",
                                            omittingEmptySubsequences: false).enumerated() where !line.isEmpty && !line.hasPrefix("#") {
                let html = line.replacingOccurrences(of: "⏎", with: "\n").replacingOccurrences(of: "⇥",
                                                                                               with: "\t").replacingOccurrences(of: "␀",
                                                                                                   with: "\0")
                out.append(Vector(file: file, line: index + 1, html: html))
            }
        }
        return out
    }()

    static func sanitize(_ html: String) -> HTMLSanitizer.Result {
        HTMLSanitizer().sanitize(html) { cid in
            SanitizedTree.partPrefix + (cid.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
    }

    static func withoutImageSources(_ html: String) -> String {
        html.replacingOccurrences(of: #" (src|data-mw-cid|data-mw-remote-src)="[^"]*""#, with: "", options: .regularExpression)
    }

    @Test func theCorpusHoldsAtLeastAHundredVectors() {
        #expect(Self.vectors.count >= 100)
    }

    @Test(arguments: vectors)
    func vectorComesOutInert(_ vector: Vector) throws {
        let result = Self.sanitize(vector.html)
        let html = try #require(result.html)
        let tree = SanitizedTree(html)
        #expect(tree.violations.isEmpty, "\(tree.violations) in \(html)")
        #expect(!html.lowercased().contains("<script"), "\(html)")
        #expect(!html.lowercased().contains("<svg"), "\(html)")
        #expect(!html.lowercased().contains("<iframe"), "\(html)")
    }

    @Test(arguments: vectors)
    func sanitizingTheOutputAgainChangesNothing(_ vector: Vector) throws {
        // Image sources are rewritten on purpose (part URLs, marked remote
        // images) and do not survive a second pass; everything else must.
        let once = Self.withoutImageSources(try #require(Self.sanitize(vector.html).html))
        let twice = try #require(Self.sanitize(once).html)
        #expect(once == twice, "mutated on re-parse: \(once) → \(twice)")
    }
}
