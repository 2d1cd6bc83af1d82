import CSpawnShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Raw writes to file descriptors, retrying short writes and EINTR.
public enum FileDescriptorIO {
    /// Writes every byte; false when the descriptor fails.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// A new pipe whose both ends are close-on-exec from creation (`pipe2(O_CLOEXEC)`),
    /// so no child process spawned meanwhile inherits an end; nil when the process is out of descriptors.
    public static func makePipe() -> (read: Int32, write: Int32)? {
        var fds: [Int32] = [-1, -1]
        guard mw_pipe_cloexec(&fds) == 0 else { return nil }
        return (fds[0], fds[1])
    }
}
