internal import CLibSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteDatabase {
    /// Copies the database to `destination` with SQLite's online backup API
    /// while the database stays in use.
    ///
    /// Pages are copied `pagesPerStep` at a time; between steps other work
    /// queued on this database runs (its writes are carried into the copy by
    /// SQLite). Writes by other connections restart the copy; when that keeps
    /// happening the rest is copied in one step, which in WAL mode does not
    /// block those writers. The copy is written to `destination + ".partial"`
    /// (mode `configuration.fileMode`), synced, and renamed over
    /// `destination`, so `destination` is either the old file or a complete,
    /// consistent database. Cancelling the task abandons the copy.
    @discardableResult
    public func backup(to destination: String, pagesPerStep: Int = 256) async throws(SQLiteError) -> SQLiteBackupReport {
        let source = try liveConnection()
        guard destination != configuration.path, !destination.isEmpty, destination != ":memory:" else {
            throw SQLiteError(.backup, "the backup destination must be another file")
        }
        let partial = destination + ".partial"
        unlink(partial)  // a leftover of an interrupted backup
        try SQLiteConnection.createIfMissing(partial, mode: configuration.fileMode)

        var destinationHandle: OpaquePointer?
        var rc = sqlite3_open_v2(partial, &destinationHandle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE, nil)
        guard rc == SQLITE_OK, let destinationHandle else {
            let error = SQLiteError.from(rc, db: destinationHandle, context: .backup, what: "opening \(partial)")
            sqlite3_close(destinationHandle)
            unlink(partial)
            throw SQLiteError(.backup, error.message, resultCode: error.resultCode)
        }
        sqlite3_extended_result_codes(destinationHandle, 1)
        func abandon(_ error: SQLiteError) -> SQLiteError {
            sqlite3_close_v2(destinationHandle)
            unlink(partial)
            return error
        }
        guard let backup = sqlite3_backup_init(destinationHandle, "main", source.handle, "main") else {
            throw abandon(SQLiteError.from(sqlite3_extended_errcode(destinationHandle), db: destinationHandle, context: .backup,
                                           what: "starting the backup"))
        }

        backupsInProgress += 1
        defer { backupsInProgress -= 1 }
        var steps = 0
        var pages = Int32(clamping: max(1, pagesPerStep))
        while true {
            rc = sqlite3_backup_step(backup, pages)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED else {
                sqlite3_backup_finish(backup)
                throw abandon(SQLiteError(SQLiteError.code(for: rc, context: .backup),
                                          "backup step failed: \(String(cString: sqlite3_errstr(rc)))", resultCode: rc))
            }
            steps += 1
            // Restarted too often by other connections' writes: copy the rest at once.
            let expected = Int(sqlite3_backup_pagecount(backup)) / Int(max(pages, 1)) + 1
            if pages > 0, steps > 2 * expected + 8 { pages = -1 }
            if Task.isCancelled {
                sqlite3_backup_finish(backup)
                throw abandon(SQLiteError(.interrupted, "backup cancelled"))
            }
            // Let other work queued on this database run between steps.
            if rc == SQLITE_OK {
                await Task.yield()
            } else {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let pageCount = Int(sqlite3_backup_pagecount(backup))
        rc = sqlite3_backup_finish(backup)
        guard rc == SQLITE_OK else {
            throw abandon(SQLiteError.from(rc, db: destinationHandle, context: .backup, what: "finishing the backup"))
        }
        rc = sqlite3_close(destinationHandle)
        guard rc == SQLITE_OK else {
            throw abandon(SQLiteError(.backup, "closing the backup: \(String(cString: sqlite3_errstr(rc)))", resultCode: rc))
        }
        try Self.syncAndRename(partial, to: destination)
        return SQLiteBackupReport(pageCount: pageCount, steps: steps + 1)
    }

    private static func syncAndRename(_ from: String, to: String) throws(SQLiteError) {
        func failure(_ what: String) -> SQLiteError {
            let err = errno
            unlink(from)
            return SQLiteError(.backup, "\(what): \(String(cString: strerror(err)))")
        }
        let fd = Glibc.open(from, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("reopening \(from)") }
        let synced = fsync(fd)
        Glibc.close(fd)
        guard synced == 0 else { throw failure("syncing \(from)") }
        guard rename(from, to) == 0 else { throw failure("renaming \(from) to \(to)") }
        var directory = String(to[..<(to.lastIndex(of: "/") ?? to.startIndex)])
        if directory.isEmpty { directory = to.hasPrefix("/") ? "/" : "." }
        let dirfd = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            fsync(dirfd)
            Glibc.close(dirfd)
        }
    }
}
