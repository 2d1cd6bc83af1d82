import Foundation
import MailwakeCore
import MailwakeHTTPClient
@testable import MailwakeHTTPServer
import MailwakeHTTPTypes
import OutpostService
import TestSupport
import Testing

/// The outpost's admin listener (`OutpostAdmin.server`, as the daemon builds it) against openapi-admin.yaml.
@Suite("Outpost: the admin OpenAPI document matches the admin listener", .serialized, .awaitedCleanup)
struct AdminOpenAPITests {
    static var document: String { RepositoryPaths.file("Services/Outpost/openapi-admin.yaml").path }

    @Test func theDocumentListsExactlyTheAdminRoutesAndTheirAnswers() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (store, _) = try await OutpostStore.initialize(DataDirectory(path: scratch.file("outpost")))
        let admin = OutpostAdmin.server(listen: ListenAddress(host: "127.0.0.1", port: 0), tls: nil, metrics: OutpostMetrics(),
                                        store: store, api: nil,
                                        logger: Logger(service: "outpost-test", level: .warning))
        let served = Set(admin.router.routeList)
        let documented = try OpenAPIRoutes.routes(inFile: Self.document)
        #expect(served.contains("GET /readyz"))
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")

        try admin.start()
        let running = Task { try await admin.run() }
        var plain = HTTPClient.Configuration()
        plain.httpVersion = .http1_1
        let client = try HTTPClient(configuration: plain)
        for (route, operation) in try OpenAPIOperation.operations(inFile: Self.document).sorted(by: { $0.key < $1.key }) {
            let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
            #expect(operation.security.isEmpty,
                    "\(route): the admin listener has no authentication, the document says \(operation.security)")
            let answer = try await client.execute(.init(method: HTTPMethod(rawValue: parts[0]),
                                                        url: "http://127.0.0.1:\(admin.port)\(parts[1])"))
            #expect(answer.status.isSuccess, "\(route) answered \(answer.status)")
            #expect(operation.statuses.contains(answer.status.code), "\(route) answered \(answer.status), not documented")
        }
        client.shutdown()
        running.cancel()
        _ = try? await running.value
        await store.close()
    }
}
