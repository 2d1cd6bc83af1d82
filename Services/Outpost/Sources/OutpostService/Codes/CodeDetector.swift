/// Finds the one-time code in a message's subject and visible text.
///
/// How it decides, so that it carries over to mail it never saw:
/// - a candidate is a run of 4–8 digits (two groups of 3–4 joined across one
///   space or hyphen), or 4–8 capitals and digits that alternate (random codes
///   do; "SAVE20", "LH1234" and "COVID19" do not);
/// - it counts only near a keyword of the language's sign-in vocabulary
///   (`CodeKeywords`, 27 languages): up to 80 characters after it, or up to 32
///   before it when a linking word joins them ("739201 is your code"), or right
///   after a verb such as "use" or "enter" in a message that speaks of signing
///   in or confirming; the nearest wins;
/// - it is dropped when its shape or its label says it is something else: part
///   of a date, time, decimal, longer digit sequence, phone number, price or
///   URL; a year; or a number labelled as an order, invoice, booking, postal
///   code, account, card ending, promotion or version shortly before it.
/// No rule names a sender, a template or a fixture.
public enum CodeDetector {
    /// Characters after a keyword where its code may stand, and before.
    static let after = 80
    static let before = 32
    /// Characters between a verb and its code ("Use: 123456").
    static let afterVerb = 3

    /// The keywords, folded like the text they are looked for in.
    static let keywords: [(word: String, folded: [Character], bounded: Bool)] = CodeKeywords.all.map { ($0, Array(fold($0)), !isUnspaced($0)) }
    static let verbs: [[Character]] = CodeKeywords.verbs.map { Array(fold($0)) }
    static let links: [String] = CodeKeywords.links.map(fold)
    static let traps: [(folded: [Character], whole: Bool)] = CodeKeywords.traps.map { (Array(fold($0)), $0.count <= 4 && !isUnspaced($0)) }

    /// The code, or nil.
    public static func detect(subject: String, body: String) -> VerificationCode? {
        let body = String(body.prefix(20_000))
        if let code = detect(in: subject, source: .subject, authenticationContext: false) { return code }
        if let code = detect(in: body, source: .body, authenticationContext: false) { return code }
        guard speaksOfAuthentication(subject) || speaksOfAuthentication(body) else { return nil }
        return detect(in: subject, source: .subject, authenticationContext: true, verbsOnly: true)
            ?? detect(in: body, source: .body, authenticationContext: true, verbsOnly: true)
    }

    /// The code in one text.
    ///
    /// - Parameters:
    ///   - raw: the subject or the visible body.
    ///   - authenticationContext: whether the message speaks of a code, signing in or confirming (verbs count only then);
    ///     nil: judged from `raw` alone.
    ///   - verbsOnly: look only after verbs (the keywords were looked at already).
    static func detect(in raw: String, source: VerificationCode.Source, authenticationContext: Bool? = nil, verbsOnly: Bool = false) -> VerificationCode? {
        let text = Array(fold(raw))
        let lower = text.map { Character($0.lowercased()) }
        var best: (distance: Int, code: VerificationCode)?
        func consider(_ distance: Int, _ candidate: Candidate, _ keyword: String) {
            if best == nil || distance < best!.distance {
                best = (distance, VerificationCode(value: candidate.value, source: source, keyword: keyword))
            }
        }
        for keyword in keywords where !verbsOnly {
            let k = keyword.folded
            var i = 0
            while let at = find(k, in: lower, from: i) {
                i = at + 1
                guard !keyword.bounded || standsAsWord(k, at: at, in: lower) else { continue }
                for candidate in candidates(in: text, from: max(0, at - before), to: min(text.count, at + k.count + after)) {
                    let distance = candidate.start >= at + k.count ? candidate.start - (at + k.count) : (at - candidate.end) * 3
                    guard distance >= 0, !isTrap(candidate, in: text, lower: lower) else { continue }
                    // A code before its keyword is joined to it: "123456 is your … code".
                    if candidate.end <= at {
                        let between = " " + String(lower[candidate.end..<at]) + " "
                        guard links.contains(where: { between.contains($0) }) else { continue }
                    }
                    consider(distance, candidate, keyword.word)
                }
            }
        }
        if best == nil, authenticationContext ?? speaksOfAuthentication(raw) {
            for (index, verb) in verbs.enumerated() {
                var i = 0
                while let at = find(verb, in: lower, from: i) {
                    i = at + 1
                    guard standsAsWord(verb, at: at, in: lower, end: true) else { continue }
                    let from = at + verb.count
                    for candidate in candidates(in: text, from: from, to: min(text.count, from + afterVerb + 1)) where candidate.start - from <= afterVerb {
                        let gap = String(text[from..<candidate.start])
                        guard gap.allSatisfy({ $0 == " " || $0 == ":" || $0 == "\"" || $0 == "«" || $0 == "„" }), !isTrap(candidate, in: text, lower: lower) else { continue }
                        consider(candidate.start - from, candidate, CodeKeywords.verbs[index])
                    }
                }
            }
        }
        return best?.code
    }

    /// Whether `text` speaks of a code, signing in or confirming.
    static func speaksOfAuthentication(_ text: String) -> Bool {
        let lower = Array(fold(String(text.prefix(20_000))).lowercased())
        return context.contains { find($0, in: lower, from: 0) != nil }
    }

    /// The words that make verbs count, folded: `CodeKeywords.authenticationContext` and every keyword.
    static let context: [[Character]] = CodeKeywords.authenticationContext.map { Array(fold($0)) } + keywords.map(\.folded)

    /// Whether the word at `at` is not the tail of a longer word (and, when `end` or the word is short, not its head either).
    static func standsAsWord(_ word: [Character], at: Int, in lower: [Character], end: Bool = false) -> Bool {
        let firstWord = word.prefix { $0.isLetter }.count
        if at > 0, lower[at - 1].isLetter, firstWord <= 5 || end { return false }
        if end || word.count <= 5, word.last?.isLetter == true, at + word.count < lower.count, lower[at + word.count].isLetter { return false }
        return true
    }

    /// Whether a word belongs to a script written without spaces between words (CJK, kana, Hangul, Thai).
    static func isUnspaced(_ word: String) -> Bool {
        word.unicodeScalars.contains { u in
            (0x0E00...0x0E7F).contains(u.value) || (0x3040...0x30FF).contains(u.value) || (0x3400...0x9FFF).contains(u.value)
                || (0xAC00...0xD7AF).contains(u.value) || (0xF900...0xFAFF).contains(u.value)
        }
    }

    struct Candidate {
        var start: Int
        var end: Int
        var value: String
        var raw: String
    }

    /// Runs of letters and digits (joined across one space or hyphen between digit groups) that could be codes.
    static func candidates(in text: [Character], from: Int, to: Int) -> [Candidate] {
        var out: [Candidate] = []
        var i = from
        while i < to {
            guard isCodeChar(text[i]), i == 0 || !isCodeChar(text[i - 1]) else { i += 1; continue }
            var j = i
            while j < text.count, isCodeChar(text[j]) { j += 1 }
            var raw = String(text[i..<j])
            var end = j
            // "123 456" and "123-456": two digit groups of 3–4.
            if j + 1 < text.count, text[j] == " " || text[j] == "-", raw.allSatisfy(\.isCodeDigit), (3...4).contains(raw.count) {
                var k = j + 1
                while k < text.count, text[k].isCodeDigit { k += 1 }
                let second = String(text[(j + 1)..<k])
                if (3...4).contains(second.count), k == text.count || !isCodeChar(text[k]) {
                    raw += String(text[j]) + second
                    end = k
                }
            }
            let value = raw.filter { $0 != " " && $0 != "-" }
            let digits = value.filter(\.isCodeDigit).count
            let isNumeric = digits == value.count && (4...8).contains(value.count)
            let isMixed = (4...8).contains(value.count) && digits >= 1 && value.allSatisfy { $0.isCodeDigit || ("A"..."Z").contains($0) }
                && value.contains(where: { ("A"..."Z").contains($0) }) && alternations(value) >= 2
            if isNumeric || isMixed { out.append(Candidate(start: i, end: end, value: value, raw: raw)) }
            i = j
        }
        return out
    }

    /// How often a code switches between letters and digits ("K7Q2" 3, "SAVE20" 1).
    static func alternations(_ value: String) -> Int {
        zip(value, value.dropFirst()).filter { $0.0.isCodeDigit != $0.1.isCodeDigit }.count
    }

    static func isCodeChar(_ c: Character) -> Bool { c.isCodeDigit || (c.isASCII && c.isLetter) }

    /// Dates, times, years, phone numbers, prices, order numbers, colours, URLs.
    static func isTrap(_ c: Candidate, in text: [Character], lower: [Character]) -> Bool {
        let left = c.start > 0 ? text[c.start - 1] : " "
        let right = c.end < text.count ? text[c.end] : " "
        let right2 = c.end + 1 < text.count ? text[c.end + 1] : " "
        // Part of a date, a time, a decimal number, a longer number or a phone number.
        if ["/", ":", ".", ",", "+", "(", ")"].contains(left) && c.start > 1 && text[c.start - 2].isCodeDigit { return true }
        if ["/", ":"].contains(right) && right2.isCodeDigit { return true }
        if [".", ","].contains(right) && right2.isCodeDigit { return true }
        if left == "+" || left == "#" || left == "-" && c.start > 1 && text[c.start - 2].isCodeDigit { return true }
        if "年月日時分".contains(right) || "년월일시".contains(right) { return true }
        // Part of a longer digit sequence: an IBAN, a card or account number in groups.
        if [" ", "-"].contains(left), c.start > 1, text[c.start - 2].isCodeDigit { return true }
        if [" ", "-"].contains(right), right2.isCodeDigit, c.end + 2 < text.count, text[c.end + 2].isCodeDigit { return true }
        // A phone number: "(415) 555-0199", "+1 415 555 0199".
        let lead = String(text[max(0, c.start - 8)..<c.start])
        if lead.contains("+") || lead.contains(")") && lead.contains(where: \.isCodeDigit) { return true }
        // A year on its own.
        if c.value.count == 4, let n = Int(c.value), (1900...2099).contains(n) { return true }
        // Money.
        let before = String(text[max(0, c.start - 3)..<c.start])
        if before.contains(where: { "$€£¥₽₩".contains($0) }) { return true }
        let afterText = String(lower[c.end..<min(lower.count, c.end + 5)])
        if ["usd", "eur", "gbp", "元", "円", "руб", "원", "€", "$"].contains(where: { afterText.trimmingPrefixSpaces.hasPrefix($0) }) { return true }
        // A URL or an e-mail address around it.
        let word = wordAround(c, in: lower)
        if word.contains("http") || word.contains("www.") || word.contains("@") || word.contains("/") { return true }
        // An order, invoice or tracking number: its label comes shortly before.
        let from = max(0, c.start - 24)
        let context = Array(lower[from..<c.start])
        for trap in traps {
            var i = 0
            while let at = find(trap.folded, in: context, from: i) {
                i = at + 1
                let head = from + at == 0 || !lower[from + at - 1].isLetter
                let tail = at + trap.folded.count >= context.count || !context[at + trap.folded.count].isLetter
                if !trap.whole || head && tail { return true }
            }
        }
        return false
    }

    static func wordAround(_ c: Candidate, in lower: [Character]) -> String {
        var s = c.start, e = c.end
        while s > 0, !lower[s - 1].isWhitespace { s -= 1 }
        while e < lower.count, !lower[e].isWhitespace { e += 1 }
        return String(lower[s..<e])
    }

    static func find(_ needle: [Character], in hay: [Character], from: Int) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count, from <= hay.count - needle.count else { return nil }
        var i = from
        while i <= hay.count - needle.count {
            if hay[i] == needle[0] {
                var j = 1
                while j < needle.count, hay[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// Full-width digits and letters (common in Chinese and Japanese mail) and Arabic-Indic, Persian, Devanagari and
    /// Thai digits to ASCII; non-breaking, narrow and ideographic spaces to spaces; final sigma to σ and the Turkish
    /// dotted capital I to I (so that lower-casing matches the keywords). Full-width punctuation stays: "583920，5分钟"
    /// is a code and a duration, not a decimal.
    static func fold(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { u -> Unicode.Scalar in
            let v = u.value
            if (0xFF10...0xFF19).contains(v) || (0xFF21...0xFF3A).contains(v) || (0xFF41...0xFF5A).contains(v) { return Unicode.Scalar(v - 0xFEE0)! }
            for zero: UInt32 in [0x0660, 0x06F0, 0x0966, 0x0E50, 0x09E6] where (zero...(zero + 9)).contains(v) { return Unicode.Scalar(0x30 + v - zero)! }
            if v == 0x00A0 || v == 0x3000 || v == 0x202F || v == 0x2009 { return " " }
            if v == 0x03C2 { return "\u{03C3}" }
            if v == 0x0130 { return "I" }
            return u
        }))
    }
}

extension String {
    var trimmingPrefixSpaces: Substring { drop { $0 == " " } }
}

extension Character {
    /// 0–9 only (not other scripts' digits).
    var isCodeDigit: Bool { ("0"..."9").contains(self) }
}
