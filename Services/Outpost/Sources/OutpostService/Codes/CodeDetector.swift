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

    /// A word to look for: as written, folded like the text, and whether it must start a word.
    struct Word {
        var word: String
        var folded: [Character]
        /// Must start a word (spaced scripts, unless the word ends compounds or its language attaches prefixes).
        var startsWord: Bool
        /// Spaced script: short words must also end a word (unless their language attaches suffixes).
        var spaced: Bool
        var endsWord: Bool

        init(_ word: String, startsWord: Bool? = nil, endsWord: Bool? = nil) {
            self.word = word
            folded = Array(CodeDetector.fold(word))
            spaced = !CodeDetector.isUnspaced(word)
            self.startsWord = startsWord ?? spaced
            self.endsWord = endsWord ?? spaced
        }
    }

    /// The keywords, longest first.
    static let keywords: [Word] = CodeKeywords.all.map { word in
        func inAny(_ languages: Set<String>) -> Bool { languages.contains { CodeKeywords.byLanguage[$0]?.contains(word) == true } }
        return Word(word,
                    startsWord: isUnspaced(word) || inAny(CodeKeywords.prefixingLanguages)
                        || CodeKeywords.compoundTails.contains(word) ? false : nil,
                    endsWord: isUnspaced(word) || inAny(CodeKeywords.suffixingLanguages) ? false : nil)
    }
    static let verbs: [Word] = (CodeKeywords.verbs + CodeKeywords.verbsUnspaced).map { Word($0) }
    static let verbsAfter: [[Character]] = CodeKeywords.verbsAfter.map { Array(fold($0)) }
    static let booking: [[Character]] = CodeKeywords.bookingContext.map { Array(fold($0)) }
    static let links: [String] = CodeKeywords.links.map(fold)
    static let traps: [(folded: [Character], whole: Bool)] = CodeKeywords.traps.map { (Array(fold($0)), $0.count <= 4 && !isUnspaced($0)) }

    /// What a pass over one text may take.
    struct Scope {
        /// Look after keywords (first pass) or after verbs (second pass, in a message about signing in).
        var verbs = false
        /// Letter codes count (not in a message about a booking, where they are references).
        var letters = true
    }

    /// The code, or nil.
    public static func detect(subject: String, body: String) -> VerificationCode? {
        let body = String(body.prefix(20_000))
        let subjectText = Folded(subject), bodyText = Folded(body)
        var scope = Scope(letters: !subjectText.containsAny(booking) && !bodyText.containsAny(booking))
        if let code = detect(in: subjectText, source: .subject, scope: scope) ?? detect(in: bodyText, source: .body,
                                                                                        scope: scope) { return code }
        guard subjectText.containsAny(context) || bodyText.containsAny(context) else { return nil }
        scope.verbs = true
        return detect(in: subjectText, source: .subject, scope: scope) ?? detect(in: bodyText, source: .body, scope: scope)
    }

    /// The code in one text, judged on its own (a subject without its body).
    static func detect(in raw: String, source: VerificationCode.Source) -> VerificationCode? {
        let text = Folded(raw)
        let scope = Scope(letters: !text.containsAny(booking))
        if let code = detect(in: text, source: source, scope: scope) { return code }
        guard text.containsAny(context) else { return nil }
        return detect(in: text, source: source, scope: Scope(verbs: true, letters: scope.letters))
    }

    /// A text folded for matching: its characters, and the same lower-cased.
    struct Folded {
        var text: [Character]
        var lower: [Character]

        init(_ raw: String) {
            text = Array(CodeDetector.fold(raw))
            lower = text.map { Character($0.lowercased()) }
        }

        func containsAny(_ words: [[Character]]) -> Bool {
            words.contains { CodeDetector.find($0, in: lower, from: 0) != nil }
        }
    }

    static func detect(in folded: Folded, source: VerificationCode.Source, scope: Scope) -> VerificationCode? {
        let text = folded.text, lower = folded.lower
        var best: (distance: Int, code: VerificationCode)?
        func consider(_ distance: Int, _ candidate: Candidate, _ keyword: String) {
            guard scope.letters || candidate.value.allSatisfy(\.isCodeDigit), !isTrap(candidate, in: text, lower: lower) else { return }
            if best == nil || distance < best!.distance {
                best = (distance, VerificationCode(value: candidate.value, source: source, keyword: keyword))
            }
        }
        if !scope.verbs {
            for keyword in keywords {
                let k = keyword.folded
                var i = 0
                while let at = find(k, in: lower, from: i) {
                    i = at + 1
                    guard standsAsWord(keyword, at: at, in: lower) else { continue }
                    for candidate in candidates(in: text, from: max(0, at - before), to: min(text.count, at + k.count + after)) {
                        if candidate.start >= at + k.count {
                            // Across a sentence end the code more likely belongs to something else.
                            let crossed = sentenceEnds(in: text, from: at + k.count, to: candidate.start)
                            consider(candidate.start - (at + k.count) + 60 * crossed, candidate, keyword.word)
                        } else if candidate.end <= at, joins(String(lower[candidate.end..<at])) {
                            // A code before its keyword: "123456 is your … code", "854828 आपका लॉगिन कोड".
                            consider((at - candidate.end) * 3, candidate, keyword.word)
                        }
                    }
                }
            }
            return best?.code
        }
        for verb in verbs {
            var i = 0
            while let at = find(verb.folded, in: lower, from: i) {
                i = at + 1
                guard standsAsWord(verb, at: at, in: lower, end: verb.spaced) else { continue }
                let from = at + verb.folded.count
                for candidate in candidates(in: text, from: from,
                                            to: min(text.count, from + afterVerb + 1)) where candidate.start - from <= afterVerb {
                    guard text[from..<candidate.start].allSatisfy(isGap) else { continue }
                    consider(candidate.start - from, candidate, verb.word)
                }
            }
        }
        for candidate in candidates(in: text, from: 0, to: text.count) {
            var k = candidate.end
            while k < text.count, k - candidate.end < 2, text[k] == " " { k += 1 }
            if let verb = verbsAfter.firstIndex(where: { v in k + v.count <= lower.count && lower[k..<(k + v.count)].elementsEqual(v) }) {
                consider(k - candidate.end, candidate, CodeKeywords.verbsAfter[verb])
            }
        }
        return best?.code
    }

    /// Sentence ends between two positions: ".", "!" or "?" before a space or line break, "。", "！", "？".
    static func sentenceEnds(in text: [Character], from: Int, to: Int) -> Int {
        guard from < to else { return 0 }
        var n = 0
        for i in from..<to {
            let c = text[i]
            if c == "。" || c == "！" || c == "？" { n += 1 } else if ".!?".contains(c), i + 1 < to, text[i + 1].isWhitespace { n += 1 }
        }
        return n
    }

    /// Characters that may stand between a verb and its code.
    static func isGap(_ c: Character) -> Bool { c == " " || c == ":" || c == "\"" || c == "«" || c == "„" || c == "“" || c == "「" }

    /// Whether the text between a code and the keyword after it joins them: a linking word, or a few words with no
    /// number and no sentence end between ("854828 your login code").
    static func joins(_ between: String) -> Bool {
        let padded = " " + between + " "
        if links.contains(where: { padded.contains($0) }) { return true }
        return between.count <= 12 && !between.contains(where: { $0.isCodeDigit || ".!?。！？\n".contains($0) })
    }

    /// The words that make verbs count, folded: `CodeKeywords.authenticationContext` and every keyword.
    static let context: [[Character]] = CodeKeywords.authenticationContext.map { Array(fold($0)) } + keywords.map(\.folded)

    /// Whether `word` found at `at` stands as a word: in spaced scripts not the tail of a longer word (when it must
    /// start one, and its first word is short or `end` is set), and, when short or `end` is set, not the head of one.
    static func standsAsWord(_ word: Word, at: Int, in lower: [Character], end: Bool = false) -> Bool {
        let w = word.folded
        let firstWord = w.prefix { $0.isLetter }.count
        if word.startsWord, at > 0, lower[at - 1].isLetter, firstWord <= 5 || end { return false }
        if word.endsWord, end || w.count <= 5, w.last?.isLetter == true, at + w.count < lower.count,
           lower[at + w.count].isLetter { return false }
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

    /// Runs of letters and digits that could be codes: joined across one space or hyphen between two groups of 3–4
    /// ("123 456", "ZMJH-HGW7"), and single digits spaced out ("1 5 5 7 9 7", one a table cell).
    static func candidates(in text: [Character], from: Int, to: Int) -> [Candidate] {
        var out: [Candidate] = []
        var i = from
        while i < to {
            guard isCodeChar(text[i]), i == 0 || !isCodeChar(text[i - 1]) else { i += 1; continue }
            var j = i
            while j < text.count, isCodeChar(text[j]) { j += 1 }
            var raw = String(text[i..<j])
            var end = j
            var grouped = false
            if j + 1 < text.count, text[j] == " " || text[j] == "-", (3...4).contains(raw.count) {
                var k = j + 1
                while k < text.count, isCodeChar(text[k]) { k += 1 }
                let second = String(text[(j + 1)..<k])
                let sameKind = raw.allSatisfy(\.isCodeDigit) == second.allSatisfy(\.isCodeDigit) || text[j] == "-"
                if (3...4).contains(second.count), sameKind, k == text.count || !isCodeChar(text[k]) {
                    raw += String(text[j]) + second
                    end = k
                    grouped = !raw.allSatisfy { $0.isCodeDigit || $0 == " " || $0 == "-" }
                }
            } else if raw.count == 1, raw.first!.isCodeDigit {
                var k = j
                while k + 1 < text.count, text[k] == " ", text[k + 1].isCodeDigit, k + 2 == text.count || !isCodeChar(text[k + 2]) {
                    raw += " " + String(text[k + 1])
                    k += 2
                }
                if (4...8).contains(raw.count / 2 + 1), raw.count > 1 { end = k } else { raw = String(text[i..<j]) }
            }
            let value = raw.filter { $0 != " " && $0 != "-" }
            let digits = value.filter(\.isCodeDigit).count
            let isNumeric = digits == value.count && (4...8).contains(value.count)
            let isMixed = (4...8).contains(value.count) && digits >= 1 && value.allSatisfy { $0.isCodeDigit || ("A"..."Z").contains($0) }
                && value.contains(where: { ("A"..."Z").contains($0) }) && (alternations(value) >= 2 || grouped || isRandomBlock(value))
            if isNumeric || isMixed { out.append(Candidate(start: i, end: end, value: value, raw: raw)) }
            i = max(end, j)
        }
        return out
    }

    /// Whether a code made of one block of letters and one of digits has letters that do not read as a word or a
    /// designator: "YTFHB7", "46SJJE" are codes; "COVID19" (a word) and "LH1234" (an airline) are not, nor is a
    /// promotion ("FLASH30", "SALE2025": digits that are a percentage, an amount or a year).
    static func isRandomBlock(_ value: String) -> Bool {
        let letters = value.filter { !$0.isCodeDigit }
        guard letters.count >= 3 else { return false }
        if value.last!.isCodeDigit, let n = Int(value.filter(\.isCodeDigit)), n % 5 == 0 || (1990...2099).contains(n) { return false }
        let vowels = letters.filter { "AEIOU".contains($0) }.count
        return Double(vowels) / Double(letters.count) < 0.3
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
        // A flight, train or route number: "LH 1234", "FR 9519" (a short word of capitals that is no keyword).
        if left == " ", c.start >= 3 {
            var s = c.start - 1
            while s > 0, ("A"..."Z").contains(text[s - 1]) { s -= 1 }
            let word = String(text[s..<(c.start - 1)])
            if (2...3).contains(word.count), s == 0 || !text[s - 1].isLetter,
               !keywords.contains(where: { String($0.folded) == word.lowercased() }) { return true }
        }
        // The end of a masked card or account number: "*4242", "•••• 4242".
        let masked = String(text[max(0, c.start - 2)..<c.start])
        if masked.contains(where: { "*•∗·●".contains($0) }) { return true }
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
        if ["usd", "eur", "gbp", "元", "円", "руб", "원", "€",
            "$"].contains(where: { afterText.trimmingPrefixSpaces.hasPrefix($0) }) { return true }
        // A URL or an e-mail address around it.
        let word = wordAround(c, in: lower)
        if word.contains("http") || word.contains("www.") || word.contains("@") || word.contains("/") { return true }
        // An order, invoice or tracking number: its label comes shortly before.
        // A label names the first number after it only: "card ending in 4242, is: 072 914".
        var from = max(0, c.start - 24)
        if let lastDigit = lower[from..<c.start].lastIndex(where: \.isCodeDigit) { from = lastDigit + 1 }
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
            if (0xFF10...0xFF19).contains(v) || (0xFF21...0xFF3A).contains(v)
                || (0xFF41...0xFF5A).contains(v) { return Unicode.Scalar(v - 0xFEE0)! }
            for zero: UInt32 in [0x0660, 0x06F0, 0x0966, 0x0E50,
                                 0x09E6] where (zero...(zero + 9)).contains(v) { return Unicode.Scalar(0x30 + v - zero)! }
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
