import Foundation
import MailwakeCrypto

/// The outpost's master key: 32 random bytes in `secret.key` (mode 0600).
/// Every secret in the database is sealed under keys derived from it; without
/// it the database is of no use, with it the outpost is whole (keep backups).
public struct SecretKey: Sendable {
    static let byteCount = 32
    let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Creates `path` with 32 fresh random bytes; refuses to replace a file.
    public static func create(at path: String) throws(OutpostError) -> SecretKey {
        let bytes: [UInt8]
        do { bytes = try SecureRandom.bytes(byteCount) } catch { throw OutpostError(.secretKey, "cannot get random bytes for secret.key") }
        try SecretFile.create(at: path, bytes: bytes, code: .secretKey,
                              ifExists: OutpostError(.alreadyInitialized, "\(path) already exists: refusing to overwrite the outpost's key"))
        return SecretKey(bytes: bytes)
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
        guard let data = FileManager.default.contents(atPath: path) else { throw OutpostError(.secretKey, "cannot read \(path)") }
        guard data.count == byteCount else {
            throw OutpostError(.secretKey, "\(path) holds \(data.count) bytes, not \(byteCount): it is not an outpost secret key")
        }
        return SecretKey(bytes: Array(data))
    }

    /// The key that seals values for one purpose (`identity`, `setting:relay_token`, …).
    func sealingKey(purpose: String) throws(OutpostError) -> SymmetricKey {
        do {
            return try HKDF.deriveKey(inputKeyMaterial: bytes, salt: Array("mailwake-outpost/v1".utf8), info: Array(purpose.utf8), outputByteCount: 32)
        } catch {
            throw OutpostError(.secretKey, "cannot derive a sealing key")
        }
    }
}
