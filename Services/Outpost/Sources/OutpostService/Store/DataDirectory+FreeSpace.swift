import Foundation

extension DataDirectory {
    /// Below this many free bytes the file system counts as full: SQLite cannot grow its WAL or make its shared-memory file.
    static let fullBelowBytes: UInt64 = 256 << 10

    /// Bytes an unprivileged writer may still use on the directory's file system; nil when it cannot be read.
    public func freeBytes() -> UInt64? {
        var s = statvfs()
        guard statvfs(path, &s) == 0 else { return nil }
        return UInt64(s.f_bavail) * UInt64(s.f_frsize)
    }

    /// Why the database at `databasePath` could not be opened, naming a full file system when it is one.
    func openFailure(_ error: any Error, freeBytes: UInt64?) -> OutpostError {
        if let freeBytes, freeBytes < Self.fullBelowBytes {
            return OutpostError(.storage,
                                "cannot open \(databasePath): the file system holding \(path) is full (\(freeBytes) bytes free); "
                                + "free some space and try again (\(error))")
        }
        return OutpostError(.storage, "cannot open \(databasePath): \(error)")
    }
}
