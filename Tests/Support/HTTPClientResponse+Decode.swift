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
