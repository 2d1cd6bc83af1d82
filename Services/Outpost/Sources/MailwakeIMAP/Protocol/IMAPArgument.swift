/// How a string goes on the wire in a command: as an atom, a quoted string,
/// or a literal (bytes a quoted string cannot carry: CR, LF, NUL, 8-bit).
enum IMAPArgument {
    case atom(String)
    case quoted(String)
    case literal([UInt8])

    /// The safest form for `value` as an astring.
    static func string(_ value: String) -> IMAPArgument {
        let bytes = Array(value.utf8)
        if bytes.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A || $0 >= 0x80 }) { return .literal(bytes) }
        return .quoted(value)
    }

    /// The quoted form of an ASCII string without CR/LF.
    static func quote(_ value: String) -> String {
        var out = "\""
        for c in value {
            if c == "\"" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out + "\""
    }
}
