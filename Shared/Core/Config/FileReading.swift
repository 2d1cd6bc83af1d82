#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small whole-file reads for configuration (no Foundation).
enum FileReading {
    struct Failure: Error {
        let reason: String
    }

    /// The bytes of the regular file at `path`, refusing more than `limit`.
    static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw Failure(reason: "not a regular file") }
        var out = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: String(cString: strerror(errno)))
            }
            if n == 0 { return out }
            out.append(contentsOf: buffer[0..<n])
            guard out.count <= limit else { throw Failure(reason: "larger than \(limit) bytes") }
        }
    }

    /// Permission bits of `path`, or nil.
    static func mode(_ path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode) & 0o7777
    }
}
