import Foundation

/// The Message-ID field (RFC 5322 §3.6.4) of a raw header block, unfolded, without surrounding white space.
enum MessageIDField {
    /// The field's value; nil when the header has none (or an empty one).
    static func value(in header: [UInt8]) -> String? {
        let text = String(decoding: header, as: UTF8.self)
        var lines: [Substring] = []
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.isEmpty { break }
            if let first = line.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] = Substring(String(lines[lines.count - 1]) + String(line))
            } else {
                lines.append(line)
            }
        }
        for line in lines {
            guard let colon = line.firstIndex(of: ":"),
                  line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "message-id" else { continue }
            let value = line[line.index(after: colon)...].filter { $0 != " " && $0 != "\t" }
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }
}
