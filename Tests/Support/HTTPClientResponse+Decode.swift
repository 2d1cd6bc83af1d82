import Foundation
public import MailwakeHTTPClient

extension HTTPClient.Response {
    /// The body as `type`, decoded as a client would; a shape the test did not expect throws with the status and body.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch {
            throw TestHarnessError("expected \(type), got \(status.code): \(text)")
        }
    }
}

extension HTTPClient.Response {
    /// The code of a problem document (`urn:mailwake:problem:<code>`), or nil when the body is none.
    public var problemCode: String? {
        struct Problem: Decodable { let type: String }
        guard let type = try? decode(Problem.self).type, type.hasPrefix("urn:mailwake:problem:") else { return nil }
        return String(type.dropFirst("urn:mailwake:problem:".count))
    }
}
