import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Testing

extension HTTPClient.Configuration {
    /// Defaults, trusting the test CA of `certificates`.
    static func trusting(_ certificates: TestCertificates, _ adjust: (inout Self) -> Void = { _ in }) -> Self {
        var c = Self()
        c.caFile = certificates.caCertificate.path
        c.connectTimeout = .seconds(60)  // tests of the connect timeout set their own; CI machines stall
        adjust(&c)
        return c
    }
}

/// What the Python test server's `/echo` returns.
struct Echo: Decodable {
    let method: String
    let path: String
    let headers: [[String]]
    let body: String
    let connection: Int
    let stream: Int
    let version: String

    init(_ response: HTTPClient.Response) throws {
        self = try JSONDecoder().decode(Echo.self, from: Data(response.body))
    }

    var bodyBytes: [UInt8] { Array(Data(base64Encoded: body) ?? Data()) }

    /// Headers without HTTP/2 pseudo-headers, names lower-cased.
    var fields: [(String, String)] {
        headers.filter { !$0[0].hasPrefix(":") }.map { ($0[0].lowercased(), $0[1]) }
    }

    func value(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
}

/// Runs `body` with fresh test certificates, removed afterwards.
func withCertificates<T>(_ body: (TestCertificates) async throws -> T) async throws -> T {
    let certificates = try await runOffPool { try TestCertificates.make() }
    defer { certificates.remove() }
    return try await body(certificates)
}

/// The error `operation` throws, or nil when it returns.
func thrownError<T>(_ operation: () async throws -> T) async -> (any Error)? {
    do {
        _ = try await operation()
        return nil
    } catch {
        return error
    }
}

/// The `HTTPClientError` code `operation` throws (nil for success or another error).
func clientErrorCode<T>(_ operation: () async throws -> T) async -> HTTPClientError.Code? {
    (await thrownError(operation) as? HTTPClientError)?.code
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}
