import AccountsService
import MailwakeCore
import MailwakePostgres
import TestSupport
import Testing

@Suite("Accounts: OpenAPI document", .awaitedCleanup)
struct OpenAPITests {
    @Test func theDocumentListsExactlyTheRoutesTheServiceServes() throws {
        let database = PostgresClient(configuration: try .init(url: "postgres://nobody@127.0.0.1:1/none"), logger: .disabled)
        let app = AccountsApp(configuration: .init(publicOrigin: "https://accounts.test",
                                                   databaseURL: "postgres://nobody@127.0.0.1:1/none"),
                              database: database, logger: .disabled, metrics: MetricsRegistry(), clock: { 0 })
        let served = Set(app.router().routeList)
        let documented = try OpenAPIRoutes.routes(inFile: RepositoryPaths.file("Services/Accounts/openapi.yaml").path)
        #expect(!documented.isEmpty)
        #expect(served.subtracting(documented).isEmpty, "served but not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
    }
}
