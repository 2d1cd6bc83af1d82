import MailwakeIMAP
import Testing
import TestSupport

/// STARTTLS response injection: bytes that arrive after the server's OK but
/// before TLS began are plaintext an attacker could have appended; the client
/// must refuse the connection rather than read them as if they came over TLS.
@Suite(.awaitedCleanup) struct STARTTLSInjectionTests {
    private static func connect(_ port: UInt16) async -> IMAPError? {
        let endpoint = IMAPEndpoint(host: "127.0.0.1", port: port, security: .startTLS)
        return await runOffPoolError {
            let client = try IMAPClient(endpoint: endpoint)
            client.close()
        }
    }

    @Test func bytesAfterTheSTARTTLSOKFailTheConnectionBeforeAnyHandshake() async throws {
        let standIn = try STARTTLSStandIn()
        async let observed = standIn.serve(injecting: "* CAPABILITY IMAP4rev1 AUTH=PLAIN INJECTED\r\n* 1 EXISTS\r\n")
        let error = await Self.connect(standIn.port)
        let observation = try await observed
        #expect(observation.command.hasSuffix(" STARTTLS"))
        #expect(error?.code == .tls, "\(String(describing: error))")
        #expect(error?.message.contains("sent data after its STARTTLS answer") == true, "\(String(describing: error))")
        #expect(!observation.startedTLS, "the client went on to a TLS handshake with injected bytes buffered")
        #expect(observation.afterOK.isEmpty, "the client sent \(observation.afterOK.count) bytes after the injected OK")
    }

    @Test func aCleanSTARTTLSAnswerGoesOnToTheHandshake() async throws {
        // The control: the same stand-in without injected bytes sees a ClientHello,
        // so the test above would notice a client that starts TLS anyway.
        let standIn = try STARTTLSStandIn()
        async let observed = standIn.serve(injecting: "")
        let error = await Self.connect(standIn.port)
        let observation = try await observed
        #expect(observation.startedTLS)
        #expect(error != nil, "the stand-in speaks no TLS, so the handshake fails")
        #expect(error?.message.contains("sent data after its STARTTLS answer") != true)
    }
}
