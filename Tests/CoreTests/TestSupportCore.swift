import Foundation
import MailwakeCore
import Synchronization

/// A directory under the system temp dir, removed by `remove()`.
struct ScratchDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/mailwake-core-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
    }

    /// Writes `text` to `name` with `mode` and returns the path.
    @discardableResult
    func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
        return file
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A flag shared between tasks.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }

    func wait(timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !isSet {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// Strings appended from several tasks, in order.
final class Recorder: Sendable {
    private let items = Mutex<[String]>([])
    func append(_ s: String) { items.withLock { $0.append(s) } }
    var all: [String] { items.withLock { $0 } }
}

/// A wait that ignores cancellation until `open()`.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }
}
