import COpenSSLShims

/// A heap buffer of secret bytes that is wiped when released.
///
/// What is guaranteed: the buffer is allocated once, never moved or grown,
/// and zeroed with `OPENSSL_cleanse` (which the compiler may not elide)
/// before it is freed. What is not: copies made by callers (`copyBytes`,
/// arrays passed to `init(consuming:)` that shared their storage with other
/// arrays), values in registers or on the stack while OpenSSL works, and
/// pages the kernel swapped out or a core dump captured (the buffer is not
/// `mlock`ed).
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

    /// Copies `source` (the caller keeps, and wipes, its own copy).
    init(copying source: UnsafeRawBufferPointer) {
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: max(source.count, 1), alignment: 16)
        if let base = source.baseAddress { buf.baseAddress!.copyMemory(from: base, byteCount: source.count) }
        buffer = buf
        count = source.count
    }

    /// `count` bytes written in place by `fill`, never held anywhere else;
    /// the buffer is wiped and freed when `fill` throws.
    init<E: Error>(count: Int, fill: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        buf.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try fill(UnsafeMutableRawBufferPointer(rebasing: buf[0..<count]))
        } catch {
            mw_cleanse(buf.baseAddress, buf.count)
            buf.deallocate()
            throw error
        }
        buffer = buf
        self.count = count
    }

    /// The number of secret bytes.
    let count: Int

    deinit {
        #if DEBUG
        let observer = SecureMemoryObserver.current
        observer?.willWipe(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
        #endif
        mw_cleanse(buffer.baseAddress, buffer.count)
        #if DEBUG
        observer?.didWipe(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
        #endif
        buffer.deallocate()
    }

    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
    }

    /// A copy in an ordinary array, which nothing wipes: for test vectors and key storage only.
    func copyBytes() -> [UInt8] {
        #if DEBUG
        SecureMemoryObserver.current?.copiedOut(count)
        #endif
        return Array(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
    }
}
