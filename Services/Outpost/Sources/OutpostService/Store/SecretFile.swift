import Foundation

/// Writes files that hold secrets (secret.key, the database, backups, the TLS
/// key, a pairing QR code): `open(O_CREAT|O_EXCL|O_NOFOLLOW, 0600)` and every
/// byte through that descriptor, so the file is owner-only from the moment it
/// exists, whatever the umask, and an existing file or a symlink planted at
/// the path is never followed or overwritten. No chmod afterwards that could fail.
enum SecretFile {
    /// Creates `path` holding `bytes` with `mode` (0600 unless the content is
    /// public), fsynced; throws `ifExists` (else `code`) when something is at
    /// `path` already, `code` when it cannot be written (a half-written file is removed).
    static func create(at path: String, bytes: [UInt8], mode: mode_t = 0o600, code: OutpostError.Code,
                              ifExists: OutpostError? = nil) throws(OutpostError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else {
            let reason = errno
            if reason == EEXIST || reason == ELOOP {
                throw ifExists ?? OutpostError(code, "\(path) exists: refusing to replace it")
            }
            throw OutpostError(code, "cannot create \(path): \(String(cString: strerror(reason)))")
        }
        var offset = 0
        var failure: Int32 = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            offset += n
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        guard failure == 0 else {
            unlink(path)
            throw OutpostError(code, "cannot write \(path): \(String(cString: strerror(failure)))")
        }
    }

    /// Replaces `path` (or creates it) with `bytes`, mode 0600 from creation:
    /// a new file beside it (`create`), then renamed over it, so a symlink at
    /// `path` is replaced, never followed, and readers see the old or the new file.
    static func replace(at path: String, bytes: [UInt8], code: OutpostError.Code) throws(OutpostError) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        try create(at: temporary, bytes: bytes, code: code)
        guard rename(temporary, path) == 0 else {
            let reason = errno
            unlink(temporary)
            throw OutpostError(code, "cannot write \(path): \(String(cString: strerror(reason)))")
        }
    }
}
