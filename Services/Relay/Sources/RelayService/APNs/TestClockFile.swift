import Foundation
import MailwakeCore
#if canImport(Glibc)
import Glibc
#endif

/// A test-only clock offset shared with the test through a memory-mapped
/// file (`APNS_TEST_CLOCK_FILE`): the first 8 bytes are a little-endian
/// count of seconds added to real time. Reading it is one memory load, so
/// the provider token's fast path stays cheap, and a test that writes the
/// file moves every relay process's token clock at once.
final class TestClockFile: @unchecked Sendable {
    // @unchecked: `base` points at a MAP_SHARED page that lives as long as
    // the object; it is only read, with an aligned 8-byte load.
    private let base: UnsafeMutableRawPointer

    init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw APNsKeyError(message: "cannot open the test clock file \(path)") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= 8 else {
            throw APNsKeyError(message: "the test clock file \(path) must hold at least 8 bytes")
        }
        guard let mapped = mmap(nil, 8, PROT_READ, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            throw APNsKeyError(message: "cannot map the test clock file \(path)")
        }
        base = mapped
    }

    deinit { munmap(base, 8) }

    /// The offset in seconds.
    var offsetSeconds: Int64 { Int64(littleEndian: base.load(as: Int64.self)) }

    /// Real time in Unix seconds plus the offset.
    func nowSeconds() -> Int64 { WallClock.seconds() + offsetSeconds }
}
