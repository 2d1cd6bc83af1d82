import Foundation
import MailwakeSQLite
import Synchronization

/// A directory under the system temp dir, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/mailwake-sqlite-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A flag shared between tasks and the database thread.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }

    /// Waits (without blocking a thread) until set, at most `timeout`.
    func wait(timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !isSet {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

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
