import Foundation
import MailwakeHTTPClient
@testable import MailwakeHTTPServer
import MailwakeHTTPTypes
import StackSupport
import TestSupport
import Testing

@Suite("Relay: the admin OpenAPI document matches the admin listener", .serialized, .awaitedCleanup)
struct AdminOpenAPITests {
    static var document: String { RepositoryPaths.file("Services/Relay/openapi-admin.yaml").path }

    @Test func everyAdminRouteIsDocumentedAndEveryDocumentedRouteExists() async throws {
        let stack = try await RelayStack.start()
        let admin = try #require(stack.relay.app.servers().first { $0.name == "admin" })
        let served = Set(admin.router.routeList)
        let documented = try OpenAPIRoutes.routes(inFile: Self.document)
        #expect(served.contains("GET /metrics") && served.contains("GET /admin/v1/deliveries"))
        #expect(served.subtracting(documented).isEmpty, "undocumented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
    }

    /// Open operations answer without a token, guarded ones only with a documented scheme.
    ///
    /// A missing or wrong token gets 401; every answer's status is one the
    /// document lists.
    @Test func theDocumentedAuthAndStatusesAreWhatTheListenerAnswers() async throws {
        let stack = try await RelayStack.start()
        let operations = try OpenAPIOperation.operations(inFile: Self.document)
        #expect(operations.count == Set(try OpenAPIRoutes.routes(inFile: Self.document)).count)
        let base = stack.relay.adminURL
        let token = RelayInstance.operatorToken
        let credentials: [String: String] = [
            "operatorToken": "Bearer " + token,
            "operatorBasic": "Basic " + Data("operator:\(token)".utf8).base64EncodedString(),
        ]
        for (route, operation) in operations.sorted(by: { $0.key < $1.key }) {
            let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
            let method = HTTPMethod(rawValue: parts[0])
            let path = parts[1].replacingOccurrences(of: #"\{[^}]+\}"#, with: "unknown", options: .regularExpression)
            let anonymous = try await stack.send(method, path, to: base)
            #expect(operation.statuses.contains(anonymous.status.code),
                    "\(route) answered \(anonymous.status) without a token, not documented")
            if operation.security.isEmpty {
                #expect(anonymous.status.isSuccess, "\(route) is documented as open but answered \(anonymous.status)")
                continue
            }
            #expect(anonymous.status == .unauthorized,
                    "\(route) is documented as guarded but answered \(anonymous.status) without a token")
            let wrong = try await stack.send(method, path, to: base,
                                             headers: ["Authorization": "Bearer not-the-operator-token-0123456789"])
            #expect(wrong.status == .unauthorized, "\(route) answered \(wrong.status) to a wrong token")
            for scheme in operation.security {
                let header = try #require(credentials[scheme], "\(route): scheme \(scheme) is not one this test knows")
                let admitted = try await stack.send(method, path, to: base, headers: ["Authorization": header])
                #expect(admitted.status.isSuccess, "\(route) with \(scheme) answered \(admitted.status)")
                #expect(operation.statuses.contains(admitted.status.code),
                        "\(route) with \(scheme) answered \(admitted.status), not documented")
            }
        }
    }
}
