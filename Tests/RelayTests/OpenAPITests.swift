import Foundation
import StackSupport
import TestSupport
import Testing

@Suite("Relay: the OpenAPI document matches the routes", .serialized, .awaitedCleanup)
struct OpenAPITests {
    @Test func everyPublicRouteIsDocumentedAndEveryDocumentedRouteExists() async throws {
        let stack = try await RelayStack.start()
        let documented = try OpenAPIRoutes.routes(inFile: RepositoryPaths.file("Services/Relay/openapi.yaml").path)
        let served = Set(stack.relay.app.router().routeList)
        #expect(!documented.isEmpty)
        #expect(served.subtracting(documented).isEmpty, "undocumented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
    }
}
