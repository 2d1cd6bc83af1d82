import Foundation
@testable import MailwakeMail

/// A sanitized document re-parsed as a browser would, for checking that it
/// is inert: every element, attribute, URL and style in it is allowed.
struct SanitizedTree {
    /// Everything in the tree that is not allowed, described.
    private(set) var violations: [String] = []
    private(set) var elements: [String] = []
    private(set) var attributes: [(element: String, name: String, value: String)] = []
    private(set) var stylesheets: [String] = []

    static let partPrefix = "/v1/messages/part?ref=REF&cid="
    static let addedAttributes: Set<String> = ["rel", "target", "data-mw-cid", "data-mw-remote-src", "data-mw-body", "data-mw-message"]

    init(_ html: String) {
        guard let document = HTMLDocument(Array(html.utf8)) else {
            violations.append("could not re-parse")
            return
        }
        var stack = [document.children]
        while let children = stack.popLast() {
            for index in children {
                if case .comment = document.nodes[index] { violations.append("comment or CDATA node") }
                guard case .element(let element) = document.nodes[index] else { continue }
                check(element, in: document)
                stack.append(element.children)
            }
        }
    }

    /// Every selector of a sanitized sheet (the preludes of its rules, `@media` left out).
    static func selectors(of css: String) -> [String] {
        var out: [String] = []
        for piece in css.split(separator: "{", omittingEmptySubsequences: false).dropLast() {
            let prelude = piece.split(separator: "}", omittingEmptySubsequences: false).last.map(String.init) ?? ""
            if prelude.trimmingCharacters(in: .whitespaces).hasPrefix("@") { continue }
            out += CSSFilter.splitSelectorList(prelude).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return out
    }

    /// Whether a selector matches only the message's container or what is inside it.
    static func isConfined(_ selector: String) -> Bool {
        let scope = "[data-mw-message]"
        guard selector.hasPrefix(scope) else { return false }
        let rest = selector.dropFirst(scope.count)
        guard !rest.isEmpty else { return true }
        guard rest.first == " " || rest.first == ">" else { return false }
        let next = rest.drop { $0 == " " || $0 == ">" }.first
        return next != nil && next != "~" && next != "+"
    }

    private mutating func check(_ element: HTMLElement, in document: HTMLDocument) {
        let name = element.name
        elements.append(name)
        if !element.isHTML { violations.append("foreign element \(name)") }
        if name == "style" {
            var css = ""
            for index in element.children {
                if case .text(let t) = document.nodes[index] { css += String(decoding: t, as: UTF8.self) }
            }
            stylesheets.append(css)
            for selector in Self.selectors(of: css) where !Self.isConfined(selector) { violations.append("selector \(selector) reaches " +
                "outside the message") }
            let lower = css.lowercased()
            for word in ["url(", "expression", "@import", "@font-face", "javascript", "\\", "<", "behavior",
                         "binding"] where lower.contains(word) {
                violations.append("stylesheet contains \(word)")
            }
        } else if !(HTMLPolicy.kept.contains(name) || ["html", "head", "body"].contains(name)) {
            violations.append("element \(name)")
        }
        for (attribute, value) in element.attributes.map({ ($0.name, $0.value) }) {
            attributes.append((name, attribute, value))
            if attribute.hasPrefix("on") { violations.append("event handler \(attribute)") }
            guard HTMLPolicy.allows(attribute,
                                    on: name) || Self.addedAttributes.contains(attribute) || (name == "div" && attribute == "style") else {
                violations.append("attribute \(attribute) on \(name)")
                continue
            }
            switch attribute {
            case "href":
                let scheme = URLPolicy.scheme(of: value)
                if !["http", "https", "mailto",
                     "tel"].contains(scheme ?? "") || value != URLPolicy.clean(value) { violations.append("href \(value)") }
            case "cite":
                if !["http", "https"].contains(URLPolicy.scheme(of: value) ?? "") { violations.append("cite \(value)") }
            case "src":
                let isPart = value.hasPrefix(Self.partPrefix)
                let isDataImage = ["png", "jpeg", "jpg", "gif",
                                   "webp"].contains { value.lowercased().hasPrefix("data:image/\($0);base64,") }
                if !isPart && !isDataImage { violations.append("src \(value)") }
            case "style":
                let lower = value.lowercased()
                for word in ["url(", "expression", "javascript", "\\", "behavior", "binding", "position",
                             "image"] where lower.contains(word) {
                    violations.append("style contains \(word)")
                }
            case "target":
                if value != "_blank" { violations.append("target \(value)") }
            default:
                break
            }
        }
    }
}
