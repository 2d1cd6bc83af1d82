import APNsSimulatorCore
import Foundation
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import TestSupport
import Testing

/// One request to the simulator's `/3/device/…`, valid unless a test changes it.
struct Push: Sendable {
    /// How the `authorization` header is made.
    enum Authorization: Sendable {
        /// `bearer` + a fresh token from the simulator's key, kid and team.
        case valid
        /// No header.
        case none
        /// Exactly this header value.
        case raw(String)
    }

    var method: HTTPMethod = .post
    var token = String(repeating: "ab", count: 32)
    /// Overrides `/3/device/<token>`.
    var path: String?
    var topic: String? = "net.mailwake.app"
    var pushType: String? = "alert"
    var priority: String? = "10"
    var apnsID: String? = UUID().uuidString.lowercased()
    var expiration: String? = "1900000000"
    var collapseID: String? = nil
    var authorization: Authorization = .valid
    var payload: [UInt8] = Array((#"{"aps":{"alert":{"title":"New mail","body":"Open to view"},"mutable-content":1,"sound":"default"},"# +
                                  #""mw":{"v":1,"ct":"AAAA"}}"#).utf8)
}

/// A device token distinct per `n`.
func deviceToken(_ n: Int) -> String {
    String(format: "%064x", n)
}

/// Seconds since 1970.
func nowSeconds() -> Int64 { Int64(Date().timeIntervalSince1970) }

extension APNsSimulatorProcess {
    /// An HTTP/2 client trusting the simulator's CA.
    func makeClient(_ adjust: (inout HTTPClient.Configuration) -> Void = { _ in }) throws -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.caFile = caFile
        configuration.name = "apns"
        configuration.connectTimeout = .seconds(60)  // no test here is about the connect timeout; CI machines stall
        adjust(&configuration)
        return try HTTPClient(configuration: configuration)
    }

    /// `bearer <jwt>` signed with `key` (default: the simulator's).
    func authorization(issuedAt: Int64 = nowSeconds(), keyID: String? = nil, teamID: String? = nil,
                       key: P256.Signing.PrivateKey? = nil) throws -> String {
        let token = ProviderToken(keyID: keyID ?? self.keyID, teamID: teamID ?? self.teamID, issuedAt: issuedAt)
        return "bearer " + (try token.signed(with: key ?? signingKey))
    }

    /// Sends `push` with `client`.
    func send(_ push: Push, with client: HTTPClient) async throws -> HTTPClient.Response {
        var headers = HTTPHeaders()
        switch push.authorization {
        case .valid: headers.add("authorization", try authorization())
        case .none: break
        case .raw(let value): headers.add("authorization", value)
        }
        if let v = push.topic { headers.add("apns-topic", v) }
        if let v = push.pushType { headers.add("apns-push-type", v) }
        if let v = push.priority { headers.add("apns-priority", v) }
        if let v = push.apnsID { headers.add("apns-id", v) }
        if let v = push.expiration { headers.add("apns-expiration", v) }
        if let v = push.collapseID { headers.add("apns-collapse-id", v) }
        headers.add("content-type", "application/json")
        let path = push.path ?? "/3/device/\(push.token)"
        let body: [UInt8]? = push.method == .get ? nil : push.payload
        return try await client.execute(.init(method: push.method, url: url + path, headers: headers, body: body))
    }
}

extension HTTPClient.Response {
    /// The `reason` of an APNs error body.
    var reason: String? { json?["reason"] as? String }

    /// The `timestamp` of a 410 body.
    var timestamp: Int64? { (json?["timestamp"] as? NSNumber)?.int64Value }

    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }
}

/// Starts a simulator and a client for it, runs `body`, shuts the client down.
func withSimulator(options: [APNsSimulatorProcess.Option] = [], client adjust: (inout HTTPClient.Configuration) -> Void = { _ in },
                   _ body: (APNsSimulatorProcess, HTTPClient) async throws -> Void) async throws {
    // These tests sign a new provider token per request: Apple's 20-minute rule is off unless a test sets it.
    let ruled = options.contains { if case .tokenUpdateInterval = $0 { true } else { false } }
    let sim = try await APNsSimulatorProcess.start(topic: "net.mailwake.app",
                                                   options: ruled ? options : options + [.tokenUpdateInterval(seconds: 0)])
    let client = try sim.makeClient(adjust)
    defer { client.shutdown() }
    return try await body(sim, client)
}

/// Sends `push` and expects an APNs error answer with `status` and `reason`,
/// recorded as such.
func expectRefusal(_ push: Push, status: Int, reason: APNsReason, options: [APNsSimulatorProcess.Option] = [],
                   sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await expectRefusal(status: status, reason: reason, options: options, sourceLocation: sourceLocation) { _ in push }
}

/// Builds a request from the running simulator (its key, id, team) and
/// expects it refused with `status` and `reason`.
func expectRefusal(status: Int, reason: APNsReason, options: [APNsSimulatorProcess.Option] = [],
                   sourceLocation: SourceLocation = #_sourceLocation,
                   _ makePush: (APNsSimulatorProcess) throws -> Push) async throws {
    try await withSimulator(options: options) { sim, client in
        let push = try makePush(sim)
        let response = try await sim.send(push, with: client)
        #expect(response.status.code == status, sourceLocation: sourceLocation)
        #expect(response.reason == reason.rawValue, sourceLocation: sourceLocation)
        #expect(response.headers["content-type"] == "application/json", sourceLocation: sourceLocation)
        #expect(response.headers["apns-id"] != nil, "APNs answers an apns-id on errors too", sourceLocation: sourceLocation)
        let recorded = try await sim.deliveries()
        #expect(recorded.count == 1 && recorded.first?.status == status && recorded.first?.reason == reason.rawValue,
                sourceLocation: sourceLocation)
    }
}

extension Push {
    /// This push with one field changed.
    func with<Value>(_ field: WritableKeyPath<Push, Value>, _ value: Value) -> Push {
        var copy = self
        copy[keyPath: field] = value
        return copy
    }

    /// A valid push carrying `authorization` as given.
    static func authorized(_ authorization: String) -> Push {
        var push = Push()
        push.authorization = .raw(authorization)
        return push
    }
}
