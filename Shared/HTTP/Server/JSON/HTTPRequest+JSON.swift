import MailwakeProtocol

extension HTTPRequest {
    /// Decodes the body strictly (duplicate keys, fractions for integers and
    /// unknown fields refused), answering 415 for a non-JSON content type and
    /// 400 with the failed check for anything malformed.
    public func decodeJSON<T: Decodable>(_ type: T.Type, maxBytes: Int = 64 * 1024) throws -> T {
        if let contentType = headers["Content-Type"] {
            let mediaType = contentType.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard mediaType == "application/json" else {
                throw HTTPError(.unsupportedMediaType, code: .unsupportedMediaType, detail: "send application/json")
            }
        }
        return try StrictJSON.decode(T.self, from: body, limits: .init(maxBytes: maxBytes))
    }
}

extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        String(self.drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

extension Set where Element == Character {
    static let whitespaces: Set<Character> = [" ", "\t"]
}
