import Foundation

/// A fresh directory under the system temp dir, removed by `remove()`.
public struct ScratchDirectory: Sendable {
    public let path: String

    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/mailwake-test-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` with `mode` and returns the path.
    @discardableResult
    public func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
        let path = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
