extension StrictJSON {
    /// A JSON value parsed under the strict rules of `StrictJSON.validate`.
    ///
    /// Strings hold their unescaped UTF-8 bytes (already validated; a slice of
    /// the document unless escapes had to be decoded) and
    /// numbers their literal text, so nothing is converted until a field is read.
    public enum Value: Sendable, Hashable {
        case object([Member])
        case array([Value])
        case string(ArraySlice<UInt8>)
        case number(ArraySlice<UInt8>)
        case bool(Bool)
        case null
    }

    /// One member of an object, in document order (keys are unique).
    public struct Member: Sendable, Hashable {
        public var key: ArraySlice<UInt8>
        public var value: Value
    }
}
