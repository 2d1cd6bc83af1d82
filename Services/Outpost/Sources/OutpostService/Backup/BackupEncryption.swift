import MailwakeCrypto

/// An encrypted backup (`backup --encrypt`): the archive sealed with
/// AES-256-GCM under a key scrypt derives from a passphrase.
///
/// Layout: `MAILWAKE-OUTPOST-BACKUP-ENCRYPTED\n`, format version (1), KDF
/// (1: scrypt), log2 N, r, p, salt length and salt, the 12-byte nonce, then
/// the ciphertext and its 16-byte tag. Everything before the ciphertext is
/// authenticated too, so no parameter can be changed unnoticed.
public enum BackupEncryption {
    static let magic = Array("MAILWAKE-OUTPOST-BACKUP-ENCRYPTED\n".utf8)
    static let version: UInt8 = 1
    static let scrypt: UInt8 = 1
    static let saltByteCount = 16

    /// scrypt's cost: N = 2^logN, block size r, parallelisation p.
    public struct Parameters: Sendable, Equatable {
        public var logN: Int
        public var r: Int
        public var p: Int

        /// N = 2^17, r = 8, p = 1: 128 MiB of memory and about half a second a try.
        public static let standard = Parameters(logN: 17, r: 8, p: 1)

        public init(logN: Int, r: Int, p: Int) {
            self.logN = logN
            self.r = r
            self.p = p
        }

        /// What a backup may ask of the restoring machine at most (1 GiB, a few seconds).
        var isAcceptable: Bool { (10...20).contains(logN) && (1...16).contains(r) && (1...4).contains(p) && (128 * r) << logN <= 1 << 30 }
    }

    /// Whether `data` is an encrypted backup.
    public static func isEncrypted(_ data: [UInt8]) -> Bool { data.starts(with: magic) }

    /// Seals `archive` under `passphrase`.
    public static func seal(_ archive: [UInt8], passphrase: [UInt8], parameters: Parameters = .standard) throws(OutpostError) -> [UInt8] {
        guard parameters.isAcceptable else { throw OutpostError(.storage, "scrypt parameters out of range") }
        do {
            let salt = try SecureRandom.bytes(saltByteCount)
            let nonce = try SecureRandom.bytes(AESGCM.nonceByteCount)
            let header = magic + [version, scrypt, UInt8(parameters.logN), UInt8(parameters.r), UInt8(parameters.p),
                                  UInt8(saltByteCount)] + salt + nonce
            let key = try Scrypt.deriveKey(passphrase: passphrase, salt: salt, logN: parameters.logN, r: parameters.r, p: parameters.p)
            return header + (try AESGCM.seal(archive, using: key, nonce: nonce, authenticating: header))
        } catch {
            throw OutpostError(.storage, "cannot encrypt the backup: \(error.message)")
        }
    }

    /// The archive inside an encrypted backup; a clear error for a wrong
    /// passphrase, an altered or cut file, or a format this version does not know.
    public static func open(_ data: [UInt8], passphrase: [UInt8]) throws(OutpostError) -> [UInt8] {
        guard isEncrypted(data) else { throw OutpostError(.storage, "not an encrypted outpost backup") }
        var i = magic.count
        guard data.count >= i + 6 else { throw damaged() }
        guard data[i] == version else {
            throw OutpostError(.storage,
                               "the backup's encryption format \(data[i]) is newer than this mailwake-outpost understands (1): upgrade " +
                               "to restore it")
        }
        guard data[i + 1] == scrypt else { throw OutpostError(.storage,
                                                              "the backup names a key derivation this version does not know " +
                                                              "(\(data[i + 1]))") }
        let parameters = Parameters(logN: Int(data[i + 2]), r: Int(data[i + 3]), p: Int(data[i + 4]))
        guard parameters.isAcceptable else {
            throw OutpostError(.storage,
                               "the backup asks for scrypt parameters out of range (log2 N \(parameters.logN), r \(parameters.r), p " +
                               "\(parameters.p)): refusing")
        }
        let saltCount = Int(data[i + 5])
        i += 6
        guard saltCount >= 16, data.count >= i + saltCount + AESGCM.nonceByteCount + AESGCM.tagByteCount else { throw damaged() }
        let salt = Array(data[i..<(i + saltCount)])
        i += saltCount
        let nonce = Array(data[i..<(i + AESGCM.nonceByteCount)])
        i += AESGCM.nonceByteCount
        let header = Array(data[..<i])
        let key: SymmetricKey
        do {
            key = try Scrypt.deriveKey(passphrase: passphrase, salt: salt, logN: parameters.logN, r: parameters.r, p: parameters.p)
        } catch {
            throw OutpostError(.storage, "cannot derive the backup key: \(error.message)")
        }
        do {
            return try AESGCM.open(Array(data[i...]), using: key, nonce: nonce, authenticating: header)
        } catch {
            throw OutpostError(.storage,
                               "the passphrase is wrong, or the backup was altered or damaged: it does not decrypt (nothing was restored)")
        }
    }

    private static func damaged() -> OutpostError {
        OutpostError(.storage, "the encrypted backup is cut short or damaged (nothing was restored)")
    }
}
