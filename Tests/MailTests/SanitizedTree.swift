import Foundation
import CGumboShims
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
        var stack: [UnsafeMutablePointer<GumboNode>] = [document.document]
        while let node = stack.popLast() {
            for child in HTMLDocument.children(of: node) {
                guard let child = child?.assumingMemoryBound(to: GumboNode.self) else { continue }
                if child.pointee.type == GUMBO_NODE_COMMENT
                    || child.pointee.type == GUMBO_NODE_CDATA { violations.append("comment or CDATA node") }
                guard case .element(let name, let isHTML, let element) = HTMLDocument.classify(child) else { continue }
                check(name: name, isHTML: isHTML, element: element)
                stack.append(element)
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

    private mutating func check(name: String, isHTML: Bool, element: UnsafeMutablePointer<GumboNode>) {
        elements.append(name)
        if !isHTML { violations.append("foreign element \(name)") }
        if name == "style" {
            var css = ""
            for child in HTMLDocument.children(of: element) {
                if let c = child?.assumingMemoryBound(to: GumboNode.self),
                   case .text(let t) = HTMLDocument.classify(c) { css += String(cString: t) }
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
        for (attribute, value) in HTMLDocument.attributes(of: element) {
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
