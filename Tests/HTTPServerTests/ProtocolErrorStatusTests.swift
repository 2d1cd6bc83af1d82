import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol
import TestSupport
import Testing

@Suite("HTTP server: protocol failures answer with client errors")
struct ProtocolErrorStatusTests {
    @Test func everyProtocolCodeButAnInternalFailureIsAClientError() {
        for code in ProtocolError.Code.all {
            let status = ProtocolError(code, "x").httpStatus.code
            if code == .internalFailure {
                #expect(status == 500)
            } else {
                #expect((400..<500).contains(status), "\(code) answers \(status)")
            }
        }
    }

    @Test func theListOfCodesHoldsEveryCodeOnce() throws {
        let source = String(decoding: try RepositoryPaths.bytes("Shared/Protocol/Errors/ProtocolError.swift"), as: UTF8.self)
        let declared = source.components(separatedBy: "= Code(\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(Set(declared) == Set(ProtocolError.Code.all.map(\.rawValue)))
        #expect(declared.count == ProtocolError.Code.all.count)
    }

    @Test func aForgedConsentIsUnauthorizedAndAnOldRevisionABadRequest() {
        #expect(ProtocolError(.badMAC, "x").httpStatus == .unauthorized)
        #expect(ProtocolError(.upgradeRequired, "x").httpStatus == .badRequest)
    }
}
