import CH1LoadShims

/// The benches' lean load client (`mw_h1_load`): HTTP/1.1 POSTs over keep-alive TLS connections, one request in
/// flight on each, driven by one thread with epoll, so the load a bench offers costs the shared machine little.
public enum LeanLoad {
    /// What became of one body.
    public struct Answer: Sendable, Equatable {
        /// When its request was written (wall clock, ms).
        public var sentMS: Double
        /// When its answer was read, or its connection failed (wall clock, ms).
        public var answeredMS: Double
        /// The answer's HTTP status; 0 when its connection failed first.
        public var status: Int
    }

    /// Posts `bodies` in order from `connections` connections, each sending its next body when the last is answered;
    /// blocks until every body has an answer (run it on a thread of its own).
    ///
    /// - Parameters:
    ///   - ip: the server's address (IPv4 or IPv6 literal), which its certificate must name.
    ///   - port: the server's port.
    ///   - hostHeader: the `Host` header.
    ///   - path: the request path.
    ///   - caFile: the PEM file the server's certificate must chain to.
    ///   - connections: how many connections (1…4096).
    ///   - bodies: the JSON bodies.
    /// - Returns: one answer per body, in order.
    /// - Throws: `BenchError` when no connection could be set up (connect, TLS, certificate).
    public static func closedLoop(ip: String, port: Int, hostHeader: String, path: String, caFile: String, connections: Int,
                                  bodies: [[UInt8]], connected: (() -> Void)? = nil) throws -> [Answer] {
        try run(ip: ip, port: port, hostHeader: hostHeader, path: path, caFile: caFile, connections: connections, bodies: bodies,
                schedule: nil, connected: connected)
    }

    /// Posts `bodies` in order, body i when `schedule` says or as soon after as one of `connections` has nothing in flight;
    /// blocks until every body has an answer (run it on a thread of its own).
    ///
    /// An open loop: a server that falls behind is offered the same rate, and its slowness shows as late answers and,
    /// once every connection waits, as bodies written late (their `sentMS`).
    ///
    /// - Parameters:
    ///   - connections: how many connections (1…4096): enough for the answers in flight at the schedule's rate.
    ///   - schedule: when each body is due, one offset from the start per body, not decreasing.
    ///   - connected: called once every connection is set up, just before the start.
    ///   - others: as `closedLoop`.
    /// - Returns: one answer per body, in order.
    /// - Throws: `BenchError` when no connection could be set up (connect, TLS, certificate).
    public static func openLoop(ip: String, port: Int, hostHeader: String, path: String, caFile: String, connections: Int,
                                bodies: [[UInt8]], schedule: ArrivalSchedule, connected: (() -> Void)? = nil) throws -> [Answer] {
        guard schedule.offsetsNS.count == bodies.count else {
            throw BenchError("the schedule has \(schedule.offsetsNS.count) times for \(bodies.count) bodies")
        }
        return try run(ip: ip, port: port, hostHeader: hostHeader, path: path, caFile: caFile, connections: connections,
                       bodies: bodies, schedule: schedule, connected: connected)
    }

    /// What `connected` is passed to C as.
    private final class Callback {
        let call: () -> Void
        init(_ call: @escaping () -> Void) { self.call = call }
    }

    private static func run(ip: String, port: Int, hostHeader: String, path: String, caFile: String, connections: Int,
                            bodies: [[UInt8]], schedule: ArrivalSchedule?, connected: (() -> Void)?) throws -> [Answer] {
        let joined = Array(bodies.joined())
        let lengths = bodies.map(\.count)
        var sent = [Double](repeating: 0, count: bodies.count)
        var answered = [Double](repeating: 0, count: bodies.count)
        var status = [Int32](repeating: 0, count: bodies.count)
        var error = [CChar](repeating: 0, count: 512)
        let callback = connected.map(Callback.init)
        let rc = withExtendedLifetime(callback) {
            let context = callback.map { Unmanaged.passUnretained($0).toOpaque() }
            let call: (@convention(c) (UnsafeMutableRawPointer?) -> Void)? = callback == nil ? nil : { context in
                Unmanaged<Callback>.fromOpaque(context!).takeUnretainedValue().call()
            }
            // No schedule is a closed loop: NULL times.
            return (schedule?.offsetsNS ?? []).withUnsafeBufferPointer { offsets in
                mw_h1_load_run(ip, Int32(port), hostHeader, path, caFile, Int32(connections), joined, lengths, bodies.count,
                               schedule == nil ? nil : offsets.baseAddress, call, context, &sent, &answered, &status, &error,
                               error.count)
            }
        }
        guard rc == 0 else {
            let why = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw BenchError("the load client could not connect: \(why)")
        }
        return (0..<bodies.count).map { Answer(sentMS: sent[$0], answeredMS: answered[$0], status: Int(status[$0])) }
    }
}
