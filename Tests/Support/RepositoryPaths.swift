public import Foundation

/// Locations inside the repository, for tests that read committed files
/// (vectors, fixtures, OpenAPI documents).
public enum RepositoryPaths {
    /// The repository root, found by walking up from this source file.
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
            url.deleteLastPathComponent()
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// A file below the root.
    public static func file(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The bytes of a file below the root.
    public static func bytes(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: file(relative)))
    }

    /// A JSON object read from a file below the root.
    public static func json(_ relative: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file(relative)))
        guard let dict = object as? [String: Any] else { throw CocoaError(.fileReadCorruptFile) }
        return dict
    }
}
