import Foundation
import MailwakeCrypto

/// The outpost's master key: 32 random bytes in `secret.key` (mode 0600).
/// Every secret in the database is sealed under keys derived from it; without
/// it the database is of no use, with it the outpost is whole (keep backups).
///
/// In memory the key lives only in wiped storage (`SymmetricKey`): it is
/// generated there, written to and read from the file through that buffer,
/// and derived from in place; no Swift array ever holds it, and the buffer is
/// zeroed when the last copy of the `SecretKey` goes. Not covered: `backup`
/// and `restore`, which copy the file's bytes into the archive, and memory
/// the kernel swapped out or a core dump captured (the buffer is not locked).
public struct SecretKey: Sendable {
    static let byteCount = 32
    let key: SymmetricKey

    init(key: SymmetricKey) { self.key = key }

    /// Creates `path` with 32 fresh random bytes; refuses to replace a file.
    public static func create(at path: String) throws(OutpostError) -> SecretKey {
        let key: SymmetricKey
        do { key = try SymmetricKey(randomByteCount: byteCount) } catch { throw OutpostError(.secretKey,
                                                                                             "cannot get random bytes for secret.key") }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw errno == EEXIST || errno == ELOOP
                ? OutpostError(.alreadyInitialized, "\(path) already exists: refusing to overwrite the outpost's key")
                : OutpostError(.secretKey, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        // The bytes go from the key's wiped buffer straight to the 0600 descriptor (as SecretFile does for other secrets).
        let written = key.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == byteCount, fsync(fd) == 0 else { throw OutpostError(.secretKey, "cannot write \(path)") }
        return SecretKey(key: key)
    }

    /// Reads `path`: exactly 32 bytes, readable by its owner only.
    public static func load(from path: String) throws(OutpostError) -> SecretKey {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw OutpostError(.secretKey, "\(path) is missing: run `mailwake-outpost init`, or restore the data directory from a backup")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw OutpostError(.secretKey, "\(path) may be read by others (mode \(String(info.st_mode & 0o777, radix: 8))): chmod 600 it")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw OutpostError(.secretKey, "cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fstat(fd, &info) == 0 else { throw OutpostError(.secretKey, "cannot read \(path)") }
        guard info.st_size == off_t(byteCount) else {
            throw OutpostError(.secretKey, "\(path) holds \(info.st_size) bytes, not \(byteCount): it is not an outpost secret key")
        }
        // Read straight into the key's wiped buffer.
        let key = try SymmetricKey(byteCount: byteCount) { (buffer) throws(OutpostError) in
            var done = 0
            while done < byteCount {
                let n = read(fd, buffer.baseAddress! + done, byteCount - done)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw OutpostError(.secretKey, "cannot read \(path)") }
                done += n
            }
        }
        return SecretKey(key: key)
    }

    /// The key that seals values for one purpose (`identity`, `setting:relay_token`, …).
    func sealingKey(purpose: String) throws(OutpostError) -> SymmetricKey {
        do {
            return try key.withUnsafeBytes { (ikm) throws(CryptoError) -> SymmetricKey in
                try HKDF.deriveKey(inputKeyMaterial: ikm, salt: Array("mailwake-outpost/v1".utf8), info: Array(purpose.utf8),
                                   outputByteCount: 32)
            }
        } catch {
            throw OutpostError(.secretKey, "cannot derive a sealing key")
        }
    }
}
