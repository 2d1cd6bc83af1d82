import AccountsService
import Foundation
import MailwakeCore
import MailwakeHTTPClient
@testable import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakePostgres
import TestSupport
import Testing

@Suite("Accounts: the admin and operator OpenAPI documents match the listeners", .serialized, .awaitedCleanup)
struct AdminOpenAPITests {
    static var adminDocument: String { RepositoryPaths.file("Services/Accounts/openapi-admin.yaml").path }
    static var publicDocument: String { RepositoryPaths.file("Services/Accounts/openapi.yaml").path }

    @Test func theAdminDocumentListsExactlyTheAdminListenersRoutes() throws {
        let database = PostgresClient(configuration: try .init(url: "postgres://nobody@127.0.0.1:1/none"), logger: .disabled)
        let app = AccountsApp(configuration: .init(publicOrigin: "https://accounts.test",
                                                   databaseURL: "postgres://nobody@127.0.0.1:1/none"),
                              database: database, logger: .disabled, metrics: MetricsRegistry(), clock: { 0 })
        let admin = try #require(app.servers().first { $0.name == "admin" })
        let served = Set(admin.router.routeList)
        let documented = try OpenAPIRoutes.routes(inFile: Self.adminDocument)
        #expect(served.contains("GET /readyz"))
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
    }

    /// Every admin route answers without credentials, with a documented status.
    @Test func theAdminListenerAnswersWhatTheDocumentSays() async throws {
        let fixture = try await AccountsFixture.start()
        let admin = try #require(fixture.app.servers().first { $0.name == "admin" })
        try admin.start()
        let task = Task { try await admin.run() }
        defer { task.cancel() }
        let operations = try OpenAPIOperation.operations(inFile: Self.adminDocument)
        #expect(!operations.isEmpty)
        for (route, operation) in operations.sorted(by: { $0.key < $1.key }) {
            let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
            #expect(operation.security.isEmpty,
                    "\(route): the admin listener has no authentication, the document says \(operation.security)")
            let answer = try await fixture.client.execute(.init(method: HTTPMethod(rawValue: parts[0]),
                                                                url: "http://127.0.0.1:\(admin.port)\(parts[1])"))
            #expect(answer.status.isSuccess, "\(route) answered \(answer.status)")
            #expect(operation.statuses.contains(answer.status.code), "\(route) answered \(answer.status), not documented")
        }
        task.cancel()
        _ = try? await task.value
    }

    /// The operator and internal APIs (openapi.yaml) take exactly the token the document names.
    ///
    /// A missing token and the other API's token get 401, their own is
    /// admitted; the operator API answers only statuses its document lists.
    @Test func theOperatorAndInternalAPIsTakeTheTokensTheDocumentNames() async throws {
        let fixture = try await AccountsFixture.start()
        let tokens = ["operatorToken": AccountsFixture.operatorToken, "serviceToken": AccountsFixture.serviceToken]
        let guarded = try OpenAPIOperation.operations(inFile: Self.publicDocument)
            .filter { !$0.value.security.isDisjoint(with: tokens.keys) }
        #expect(guarded.keys.contains { $0.contains(" /operator/v1/") } && guarded.keys.contains { $0.contains(" /internal/v1/") })
        for (route, operation) in guarded.sorted(by: { $0.key < $1.key }) {
            let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
            let method = HTTPMethod(rawValue: parts[0])
            let path = parts[1].replacingOccurrences(of: #"\{[^}]+\}"#, with: "unknown", options: .regularExpression)
            let isOperator = path.hasPrefix("/operator/")
            #expect(operation.security == [isOperator ? "operatorToken" : "serviceToken"], "\(route) documents \(operation.security)")
            let anonymous = try await fixture.send(method, path, json: "{}")
            #expect(anonymous.status == .unauthorized, "\(route) answered \(anonymous.status) without a token")
            let other = try await fixture.send(method, path, json: "{}",
                                               bearer: isOperator ? AccountsFixture.serviceToken : AccountsFixture.operatorToken)
            #expect(other.status == .unauthorized, "\(route) answered \(other.status) to the other API's token")
            let own = try await fixture.send(method, path, json: "{}",
                                             bearer: isOperator ? AccountsFixture.operatorToken : AccountsFixture.serviceToken)
            #expect(own.status != .unauthorized && own.status != .forbidden, "\(route) refused its own token: \(own.status)")
            if isOperator {
                #expect(operation.statuses.isSuperset(of: [anonymous.status.code, own.status.code]),
                        "\(route) answered \(anonymous.status) and \(own.status); documented \(operation.statuses.sorted())")
            }
        }
    }
}
