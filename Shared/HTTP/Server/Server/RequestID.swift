/// Request identifiers: 16 lower-case hex digits from the system generator.
enum RequestID {
    static func generate() -> String {
        var g = SystemRandomNumberGenerator()
        let n = g.next() as UInt64
        let s = String(n, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
