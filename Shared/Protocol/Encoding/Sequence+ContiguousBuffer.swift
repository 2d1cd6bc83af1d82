extension Sequence where Element == UInt8 {
    /// Runs `body` on these bytes as one buffer: in place when they are contiguous (arrays, slices, native strings'
    /// UTF-8), on a copy otherwise.
    @inlinable
    public func withContiguousBuffer<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try withContiguousStorageIfAvailable(body) { return result }
        return try ContiguousArray(self).withUnsafeBufferPointer(body)
    }
}
