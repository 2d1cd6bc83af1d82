import CH1LoadShims

/// The benches' lean load client (`mw_h1_load`): HTTP/1.1 POSTs over keep-alive TLS connections, one request in
/// flight on each, driven by one thread with epoll, so the load a bench offers costs the shared machine little.
public enum LeanLoad {
    /// What became of one body.
    public struct Answer: Sendable, Equatable {
        /// When its request was written (wall clock, ms).
        public var sentMS: Double
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
                                  bodies: [[UInt8]]) throws -> [Answer] {
        let joined = Array(bodies.joined())
        let lengths = bodies.map(\.count)
        var sent = [Double](repeating: 0, count: bodies.count)
        var status = [Int32](repeating: 0, count: bodies.count)
        var error = [CChar](repeating: 0, count: 512)
        let rc = mw_h1_load_closed_loop(ip, Int32(port), hostHeader, path, caFile, Int32(connections), joined, lengths,
                                        bodies.count, &sent, &status, &error, error.count)
        guard rc == 0 else {
            let why = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw BenchError("the load client could not connect: \(why)")
        }
        return zip(sent, status).map { Answer(sentMS: $0, status: Int($1)) }
    }
}
