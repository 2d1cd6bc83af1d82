import Foundation
import MailwakeCore
import MailwakeHTTPServer
import MailwakePostgres
import MailwakeProtocol

/// Rate limits of `POST /v1/pairings`, per client address and per outpost,
/// across every instance (both kept in PostgreSQL).
///
/// - Per address: a token bucket (`rate_buckets`) of `perAddress` a minute,
///   as many at once, taken by every request, signed or not. IPv6 addresses
///   count by their /64, the block one subscriber usually holds.
/// - Per outpost: the outpost's registrations of the last minute, counted in
///   `pairings` itself, so only registrations that passed the signature and
///   nonce checks count: a request that names another outpost's key, or
///   replays one of its signed requests, spends nothing of that outpost.
///   Concurrent registrations may pass the count together (it is checked,
///   not reserved), by as many as arrive at once.
struct PairingLimiter: Sendable {
    let database: PostgresClient
    /// Registrations a minute per outpost; 0: no limit.
    let perOutpost: Int
    /// Registration attempts a minute per client address; 0: no limit.
    let perAddress: Int
    let clockMS: @Sendable () -> Int64

    static let windowSeconds: Int64 = 60

    /// Refuses the request (`429 rate-limited`, `Retry-After`) when its
    /// address or the outpost it names is over its limit.
    func admit(_ request: HTTPRequest) async throws {
        let nowMS = clockMS()
        if perAddress > 0, let wait = try await RateBuckets(database: database).take(
            "pairings/address/" + Self.addressKey(request.remoteAddress), rate: Double(perAddress) / Double(Self.windowSeconds),
            burst: Double(perAddress), nowMS: nowMS) {
            throw Self.limited("too many pairing registrations from this address; try again later", wait: wait)
        }
        guard perOutpost > 0, let outpostID = Self.namedOutpost(request.body) else { return }
        let now = nowMS / 1000
        let row = try await database.query("""
            SELECT count(*), min(created_at) FROM pairings WHERE outpost_id = \(outpostID) AND created_at > \(now - Self.windowSeconds)
            """).single()
        let (count, oldest) = try row.decode((Int64, Int64?).self)
        if count >= Int64(perOutpost) {
            let wait = max(1, (oldest ?? now) + Self.windowSeconds - now)
            throw Self.limited("this outpost registered \(perOutpost) pairings in the last minute; try again later", wait: Int(wait))
        }
    }

    static func limited(_ detail: String, wait: Int) -> HTTPError {
        HTTPError(.tooManyRequests, code: .rateLimited, detail: detail, headers: ["Retry-After": String(wait)])
    }

    /// The outpost id of the body's `outpost_key`, nil when there is none
    /// (the handler refuses such a body itself).
    static func namedOutpost(_ body: [UInt8]) -> String? {
        struct Named: Decodable {
            var outpostKey: String
            enum CodingKeys: String, CodingKey { case outpostKey = "outpost_key" }
        }
        guard body.count <= 64 * 1024, let named = try? JSONDecoder().decode(Named.self, from: Data(body)),
              let key = Base64URL.decode(named.outpostKey), key.count == 65
        else { return nil }
        return KeyIdentity.id(of: key)
    }

    /// What an address counts as: an IPv4 address itself (also written as
    /// `::ffff:a.b.c.d`), an IPv6 address by its first 64 bits.
    static func addressKey(_ address: String) -> String {
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return address }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        return bytes[0..<8].map { String(format: "%02x", $0) }.joined() + "::/64"
    }
}
