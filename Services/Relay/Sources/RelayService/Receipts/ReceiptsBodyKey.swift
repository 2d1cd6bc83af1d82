/// A JSON member name of a receipts body, for refusing members the protocol does not define.
struct ReceiptsBodyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    /// Throws for the first member not in `allowed`.
    static func refuseUnknown(in c: KeyedDecodingContainer<ReceiptsBodyKey>, allowed: Set<String>) throws {
        if let extra = c.allKeys.first(where: { !allowed.contains($0.stringValue) }) {
            throw DecodingError.dataCorruptedError(forKey: extra, in: c, debugDescription: "unknown member \(extra.stringValue)")
        }
    }
}
