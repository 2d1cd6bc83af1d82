import Foundation
import MailwakeSQLite
import Synchronization

/// Permission bits of a file.
func fileMode(_ path: String) -> UInt32? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return UInt32(info.st_mode) & 0o777
}

struct TestFailure: Error, Equatable {}

/// The SQLiteError `body` throws, or nil.
func sqliteError<T>(_ body: () async throws -> T) async -> SQLiteError? {
    do {
        _ = try await body()
        return nil
    } catch let error as SQLiteError {
        return error
    } catch {
        return nil
    }
}
