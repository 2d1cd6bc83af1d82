/// HTTP header fields in order, with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields as sent or received, names in their original case.
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Makes room for `count` fields in all, so adding them one by one allocates once.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Appends a field (keeps existing ones of the same name).
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field of `name` with one field.
    public mutating func replace(_ name: String, _ value: String) {
        if fields.contains(where: { $0.name.caseInsensitiveEquals(name) }) {
            fields.removeAll { $0.name.caseInsensitiveEquals(name) }
        }
        fields.append((name: name, value: value))
    }

    /// Removes every field of `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for f in fields {
            hasher.combine(f.name.lowercased())
            hasher.combine(f.value)
        }
    }
}

extension String {
    /// ASCII case-insensitive equality (header names are ASCII tokens).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        func same(_ x: UInt8, _ y: UInt8) -> Bool { x == y || (x ^ 0x20 == y && ((x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)) }
        // On the strings' own bytes when they are contiguous (native strings and literals are): every lookup of a
        // request's or an answer's field compares names this way.
        let contiguous = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in a.indices.allSatisfy { same(a[$0], b[$0]) } }
        }
        if let contiguous, let result = contiguous { return result }
        return zip(utf8, other.utf8).allSatisfy(same)
    }
}
