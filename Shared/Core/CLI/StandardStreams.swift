#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered writes to stdout and stderr, and reading stdin, for tools.
public enum StandardStreams {
    /// Writes `text` to stdout.
    public static func write(_ text: String) { writeAll(1, Array(text.utf8)) }

    /// Writes raw bytes to stdout.
    public static func write(bytes: [UInt8]) { writeAll(1, bytes) }

    /// Writes `text` to stderr.
    public static func writeError(_ text: String) { writeAll(2, Array(text.utf8)) }

    /// Reads stdin to the end, refusing more than `limit` bytes.
    public static func readInput(limit: Int = 1 << 20) throws(UsageError) -> [UInt8] {
        var out = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw UsageError("cannot read standard input")
            }
            if n == 0 { return out }
            out.append(contentsOf: buf[0..<n])
            guard out.count <= limit else { throw UsageError("standard input is larger than \(limit) bytes") }
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        FileDescriptorIO.writeAll(fd, bytes)
    }
}
