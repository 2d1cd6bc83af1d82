import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The file behind a relay's `APNS_TEST_CLOCK_FILE`: 8 little-endian bytes
/// of seconds added to real time, read through a shared mapping, so a
/// write moves the provider-token clock of every relay process at once.
public final class ScratchClockFile: Sendable {
    public let path: String

    /// Creates the file (mode 0600) with offset 0; it is removed at the end of the test.
    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-clock-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: Data(count: 8), attributes: [.posixPermissions: 0o600]) else {
            throw TestHarnessError("cannot create \(path)")
        }
        let path = self.path
        AwaitedCleanup.register { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Sets the offset, in seconds.
    public func set(offsetSeconds: Int64) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TestHarnessError("cannot open \(path)") }
        defer { close(fd) }
        var value = offsetSeconds.littleEndian
        guard pwrite(fd, &value, 8, 0) == 8 else { throw TestHarnessError("cannot write \(path)") }
    }
}
