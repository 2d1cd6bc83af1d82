import Foundation
import MailwakeProtocol

/// The control API under `/_sim/` (plain JSON, no provider token):
///
/// | request | does |
/// | --- | --- |
/// | `GET /_sim/config` | the settings in force, with topic, key id, team id and token age |
/// | `POST /_sim/config` | changes any of `latency_ms`, `rates`, `goaway_after`, `max_concurrent_streams` |
/// | `GET /_sim/behaviours` | the per-token behaviours in force |
/// | `POST /_sim/behaviours` | sets the behaviour of one token (see `Behaviour`) |
/// | `DELETE /_sim/behaviours` | removes every behaviour |
/// | `GET /_sim/deliveries?since=SEQ&limit=N` | `{"deliveries":[...],"next":SEQ}` |
/// | `DELETE /_sim/deliveries` | forgets the deliveries held in memory |
/// | `GET /_sim/stats` | counts by status and reason, total, connections |
/// | `GET /_sim/offline` | the devices marked offline and what each holds |
/// | `POST /_sim/offline` | `{"device_token":"…","offline":true\|false}`: offline, APNs stores the last notification only; online delivers
/// it |
/// | `GET /_sim/clock` | `{"now_ms":N,"offset_seconds":N}`: the simulated time |
/// | `POST /_sim/clock` | `{"offset_seconds":N}`: the simulated time is the wall clock plus N seconds |
/// | `POST /_sim/goaway` | GOAWAY on `{"connection":N}` or, without a body, on every connection |
extension APNsSimulator {
    /// Deliveries returned by one page when `limit` is not given, and at most.
    static let defaultPageSize = 1000
    static let maxPageSize = 10_000

    func handleAdmin(_ request: SimulatorRequest) -> SimulatorResponse {
        let (path, query) = Self.split(request.path)
        do {
            switch (request.method, path) {
            case ("GET", "/_sim/config"):
                return .json(200, configJSON())
            case ("POST", "/_sim/config"):
                let update = try Self.decode(SettingsUpdate.self, request.body)
                let (old, new) = try settingsState.withLock { s throws(SimulatorError) in
                    let old = s
                    s = try s.applying(update)
                    return (old, s)
                }
                if new.maxConcurrentStreams != old.maxConcurrentStreams {
                    transportState.withLock { $0 }?.setMaxConcurrentStreams(new.maxConcurrentStreams)
                }
                logger.info("settings changed", ["latency_ms": .int(new.latencyMS), "goaway_after": .int(new.goawayAfter),
                                                 "max_concurrent_streams": .int(new.maxConcurrentStreams)])
                return .json(200, configJSON())
            case ("GET", "/_sim/behaviours"):
                return .json(200, behaviours.json())
            case ("POST", "/_sim/behaviours"):
                let behaviour = try Self.decode(Behaviour.self, request.body)
                if let problem = behaviour.problem { throw SimulatorError(problem) }
                behaviours.set(behaviour)
                return .json(200, behaviours.json())
            case ("DELETE", "/_sim/behaviours"):
                behaviours.removeAll()
                return .json(200, behaviours.json())
            case ("GET", "/_sim/deliveries"):
                let since = try Self.integer(query["since"], name: "since", range: 0...Int64.max - 1) ?? 0
                let limit = try Self.integer(query["limit"], name: "limit",
                                             range: 1...Int64(Self.maxPageSize)) ?? Int64(Self.defaultPageSize)
                return .json(200, deliveries.page(since: UInt64(since), limit: Int(limit)))
            case ("DELETE", "/_sim/deliveries"):
                deliveries.clear()
                return .json(200, Array(#"{"cleared":true}"#.utf8))
            case ("GET", "/_sim/stats"):
                let transport = transportState.withLock { $0 }
                return .json(200,
                             statistics.json(connectionsAccepted: transport?.connectionsAccepted ?? 0,
                                             connectionsOpen: transport?.connectionsOpen ?? 0,
                                                  deliveriesHeld: deliveries.count, tokenVerifications: validator.verifier.verifications,
                                                  providerTokens: providerTokens.counts))
            case ("GET", "/_sim/clock"):
                return .json(200, clockJSON())
            case ("POST", "/_sim/clock"):
                let update = try Self.decode(ClockRequest.self, request.body)
                guard (-10 * 365 * 86_400...10 * 365 * 86_400).contains(update.offsetSeconds) else {
                    throw SimulatorError("offset_seconds must be within ten years")
                }
                setClockOffset(ms: update.offsetSeconds * 1000)
                logger.info("clock moved", ["offset_seconds": .int(update.offsetSeconds)])
                return .json(200, clockJSON())
            case ("POST", "/_sim/goaway"):
                let target = request.body.isEmpty ? GoawayRequest(connection: nil) : try Self.decode(GoawayRequest.self, request.body)
                let asked = transportState.withLock { $0 }?.goaway(connection: target.connection) ?? 0
                return .json(200, Array(#"{"connections":\#(asked)}"#.utf8))
            case ("GET", "/_sim/offline"):
                return .json(200, offline.json())
            case ("POST", "/_sim/offline"):
                return .json(200, try setOffline(try Self.decode(OfflineRequest.self, request.body)))
            case (_, "/_sim/config"), (_, "/_sim/behaviours"), (_, "/_sim/offline"), (_, "/_sim/deliveries"), (_, "/_sim/stats"),
                 (_, "/_sim/goaway"), (_, "/_sim/clock"):
                return Self.error(405, "method \(request.method) is not allowed on \(path)")
            default:
                return Self.error(404, "no simulator endpoint \(path)")
            }
        } catch let error as SimulatorError {
            return Self.error(400, error.message)
        } catch {
            return Self.error(400, "the body is not the expected JSON: \(error)")
        }
    }

    /// `POST /_sim/offline`'s body.
    struct OfflineRequest: Decodable {
        let deviceToken: String
        let offline: Bool

        enum CodingKeys: String, CodingKey {
            case deviceToken = "device_token"
            case offline
        }
    }

    /// Marks a device offline or online; online, the notification stored for it is delivered (recorded) now.
    private func setOffline(_ r: OfflineRequest) throws(SimulatorError) -> [UInt8] {
        guard !r.deviceToken.isEmpty, r.deviceToken.utf8.count <= 200, r.deviceToken.utf8.allSatisfy({ $0 < 0x80 && $0 > 0x20 }) else {
            throw SimulatorError("device_token must be a device token")
        }
        var delivered = 0
        var accepted = 0
        if r.offline {
            offline.markOffline(r.deviceToken)
        } else if let entry = offline.markOnline(r.deviceToken) {
            accepted = entry.accepted
            if var held = entry.held {
                held.receivedAtMS = nowMS()
                held.held = false
                deliveries.append(held)
                delivered = 1
            }
        }
        logger.info("device \(r.offline ? "offline" : "online")", ["delivered": .int(delivered), "accepted_while_offline": .int(accepted)])
        var w = JSONWriter()
        w.beginObject()
        w.string("device_token", r.deviceToken.lowercased())
        w.bool("offline", r.offline)
        w.int("accepted_while_offline", Int64(accepted))
        w.int("delivered", Int64(delivered))
        w.endObject()
        return w.bytes
    }

    /// `POST /_sim/clock`'s body.
    struct ClockRequest: Decodable {
        let offsetSeconds: Int64

        enum CodingKeys: String, CodingKey {
            case offsetSeconds = "offset_seconds"
        }
    }

    private func clockJSON() -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.int("now_ms", nowMS())
        w.int("offset_seconds", clockOffsetMS.load(ordering: .relaxed) / 1000)
        w.endObject()
        return w.bytes
    }

    /// `POST /_sim/goaway`'s body.
    struct GoawayRequest: Decodable {
        let connection: UInt64?
    }

    private func configJSON() -> [UInt8] {
        let s = settings
        var w = JSONWriter()
        w.beginObject()
        s.write(to: &w)
        w.string("topic", configuration.topic)
        w.string("key_id", configuration.keyID)
        w.string("team_id", configuration.teamID)
        w.int("token_max_age", configuration.tokenMaxAge)
        w.int("token_update_interval", configuration.minimumTokenUpdateInterval)
        w.int("keep_deliveries", Int64(configuration.keepDeliveries))
        w.endObject()
        return w.bytes
    }

    private static func error(_ status: Int, _ message: String) -> SimulatorResponse {
        var w = JSONWriter()
        w.beginObject()
        w.string("error", message)
        w.endObject()
        return .json(status, w.bytes)
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws -> T {
        do {
            return try StrictJSON.decode(T.self, from: body, limits: .init(maxBytes: 64 * 1024, maxDepth: 8, allowFractions: true))
        } catch {
            throw SimulatorError("the body is not the expected JSON: \(error)")
        }
    }

    private static func integer(_ value: String?, name: String, range: ClosedRange<Int64>) throws(SimulatorError) -> Int64? {
        guard let value else { return nil }
        guard let n = Int64(value), range.contains(n) else { throw SimulatorError("\(name) must be an integer in \(range)") }
        return n
    }

    /// The path and its query parameters (no percent-decoding: the values are numbers).
    private static func split(_ target: String) -> (String, [String: String]) {
        guard let q = target.firstIndex(of: "?") else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: q)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return (String(target[..<q]), query)
    }
}
