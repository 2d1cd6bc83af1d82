public import MailwakeProtocol

extension JSONWriter {
    /// Writes `null`.
    public mutating func null(_ key: String?) { raw(key, Array("null".utf8)) }

    /// Writes the string, or `null`.
    public mutating func optionalString(_ key: String?, _ value: String?) {
        if let value { string(key, value) } else { null(key) }
    }

    /// Writes the integer, or `null`.
    public mutating func optionalInt(_ key: String?, _ value: Int64?) {
        if let value { int(key, value) } else { null(key) }
    }
}
