extension StringProtocol {
    /// Runs `body` on the string's UTF-8 bytes: in place when they are contiguous (native strings and literals
    /// are), on a copy otherwise.
    ///
    /// Scanning a buffer is several times cheaper than iterating `utf8`, which checks its representation at every
    /// byte; the relay reads and writes a few hundred bytes of header and JSON text this way per envelope.
    @inlinable
    public func withContiguousUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try utf8.withContiguousBuffer(body)
    }
}

extension ArraySlice where Element == UInt8 {
    /// True when these bytes are exactly `text`'s UTF-8 (a length check first, then the bytes).
    @inlinable
    public func isUTF8(of text: some StringProtocol) -> Bool {
        guard count == text.utf8.count else { return false }
        return withUnsafeBufferPointer { bytes in text.withContiguousUTF8 { bytes.elementsEqual($0) } }
    }
}
