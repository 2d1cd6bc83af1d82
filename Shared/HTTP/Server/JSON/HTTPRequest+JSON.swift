public import MailwakeProtocol

extension HTTPRequest {
    /// Decodes the body strictly (duplicate keys, fractions for integers and
    /// unknown fields refused), answering 415 for a non-JSON content type and
    /// 400 with the failed check for anything malformed.
    public func decodeJSON<T: Decodable>(_ type: T.Type, maxBytes: Int = 64 * 1024) throws -> T {
        try requireJSONMediaType()
        return try StrictJSON.decode(T.self, from: body, limits: .init(maxBytes: maxBytes))
    }

    /// Parses the body strictly into a `StrictJSON.Value`, for types read without `Decodable` (hot paths), with the
    /// same answers as `decodeJSON`: 415 for a non-JSON content type, 400 or 413 for a malformed or oversize body.
    public func parseJSON(maxBytes: Int = 64 * 1024) throws -> StrictJSON.Value {
        try requireJSONMediaType()
        return try StrictJSON.parse(body, limits: .init(maxBytes: maxBytes))
    }

    private func requireJSONMediaType() throws(HTTPError) {
        if let contentType = headers["Content-Type"] {
            let mediaType = contentType.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard mediaType == "application/json" else {
                throw HTTPError(.unsupportedMediaType, code: .unsupportedMediaType, detail: "send application/json")
            }
        }
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
