/// Finds the one-time code in a message's subject and visible text: a run of
/// 4–8 digits, or a short code of capitals and digits with at least one
/// digit, shortly after (or just before) a keyword in one of ten languages.
/// Dates, times, years, phone numbers, prices, order and tracking numbers,
/// CSS colours and URLs are not codes.
public enum CodeDetector {
    /// Characters after a keyword where its code may stand, and before.
    static let after = 80
    static let before = 32

    /// The code, or nil.
    public static func detect(subject: String, body: String) -> VerificationCode? {
        if let code = detect(in: subject, source: .subject) { return code }
        return detect(in: String(body.prefix(20_000)), source: .body)
    }

    static func detect(in raw: String, source: VerificationCode.Source) -> VerificationCode? {
        let text = Array(fold(raw))
        let lower = text.map { Character($0.lowercased()) }
        var best: (distance: Int, code: VerificationCode)?
        for keyword in CodeKeywords.all {
            let k = Array(keyword)
            var i = 0
            while let at = find(k, in: lower, from: i) {
                i = at + 1
                // Short Latin keywords ("otp", "code", "code:") must stand as words (CJK text has no spaces).
                let latin = k.allSatisfy(\.isASCII)
                if latin, k.count <= 5, at > 0, lower[at - 1].isLetter { continue }
                if latin, k.count <= 5, k.last?.isLetter == true, at + k.count < lower.count, lower[at + k.count].isLetter { continue }
                for candidate in candidates(in: text, from: max(0, at - before), to: min(text.count, at + k.count + after)) {
                    let distance = candidate.start >= at + k.count ? candidate.start - (at + k.count) : (at - candidate.end) * 3
                    guard distance >= 0, !isTrap(candidate, in: text, lower: lower) else { continue }
                    // A code before its keyword reads "123456 is your … code".
                    if candidate.end <= at, !String(lower[candidate.end..<at]).contains(" is ") { continue }
                    if best == nil || distance < best!.distance {
                        best = (distance, VerificationCode(value: candidate.value, source: source, keyword: keyword))
                    }
                }
            }
        }
        return best?.code
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
                && value.contains(where: { ("A"..."Z").contains($0) })
            if isNumeric || isMixed { out.append(Candidate(start: i, end: end, value: value, raw: raw)) }
            i = j
        }
        return out
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
        let context = String(lower[max(0, c.start - 24)..<c.start])
        if CodeKeywords.traps.contains(where: { context.contains($0) }) { return true }
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
            if hay[i] == needle[0], Array(hay[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }

    /// Full-width digits and letters (common in Chinese and Japanese mail) to ASCII; non-breaking and ideographic
    /// spaces to spaces. Full-width punctuation stays: "583920，5分钟" is a code and a duration, not a decimal.
    static func fold(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { u -> Unicode.Scalar in
            if (0xFF10...0xFF19).contains(u.value) || (0xFF21...0xFF3A).contains(u.value) || (0xFF41...0xFF5A).contains(u.value) {
                return Unicode.Scalar(u.value - 0xFEE0)!
            }
            if u.value == 0x00A0 || u.value == 0x3000 { return " " }
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
