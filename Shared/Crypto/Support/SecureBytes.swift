import COpenSSLShims

/// A heap buffer of secret bytes that is wiped when released.
// Safe to share across threads: the buffer is written only in init and is
// read-only afterwards, until deinit wipes it.
final class SecureBytes: @unchecked Sendable {
    private let buffer: UnsafeMutableRawBufferPointer

    /// Takes the bytes of `source` and wipes `source`.
    init(consuming source: inout [UInt8]) {
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: max(source.count, 1), alignment: 16)
        source.withUnsafeMutableBytes { src in
            if let base = src.baseAddress {
                buf.baseAddress!.copyMemory(from: base, byteCount: src.count)
                mw_cleanse(base, src.count)
            }
        }
        buffer = buf
        count = source.count
    }

    /// The number of secret bytes.
    let count: Int

    deinit {
        mw_cleanse(buffer.baseAddress, buffer.count)
        buffer.deallocate()
    }

    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
    }

    func copyBytes() -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
    }
}
