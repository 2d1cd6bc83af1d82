/// One value of an IMAP response: an atom (numbers, flags and section
/// names such as `BODY[HEADER]` included), a string (quoted or literal, as
/// bytes: header literals need not be UTF-8), NIL, or a parenthesized list.
public indirect enum IMAPValue: Sendable, Equatable {
    case atom(String)
    case string([UInt8])
    case null
    case list([IMAPValue])

    /// The atom's text, or the string decoded as UTF-8 (lossy).
    public var text: String? {
        switch self {
        case .atom(let a): a
        case .string(let s): String(decoding: s, as: UTF8.self)
        case .null, .list: nil
        }
    }

    /// The bytes of a string or an atom.
    public var bytes: [UInt8]? {
        switch self {
        case .atom(let a): Array(a.utf8)
        case .string(let s): s
        case .null, .list: nil
        }
    }

    /// The atom as an unsigned 32-bit number (UIDs, counts).
    public var number: UInt32? {
        if case .atom(let a) = self { return UInt32(a) }
        return nil
    }

    /// The list's elements.
    public var elements: [IMAPValue]? {
        if case .list(let l) = self { return l }
        return nil
    }
}
