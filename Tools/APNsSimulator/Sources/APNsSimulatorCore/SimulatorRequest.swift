/// One complete HTTP/2 request as the transport hands it over: the
/// pseudo-headers, the APNs headers the simulator looks at, and the body.
public struct SimulatorRequest: Sendable {
    public var method: String
    /// `:path` as sent, query included.
    public var path: String
    public var authorization: String?
    public var topic: String?
    public var pushType: String?
    public var priority: String?
    public var apnsID: String?
    public var expiration: String?
    public var collapseID: String?
    /// The body bytes kept (at most the transport's limit).
    public var body: [UInt8]
    /// The body length received, which may exceed `body.count`.
    public var bodyLength: Int
    /// The transport's connection number (1, 2, ... in accept order).
    public var connection: UInt64
    /// The HTTP/2 stream id.
    public var stream: Int32
    /// Requests received on this connection so far, this one included.
    public var connectionRequests: Int

    public init(method: String, path: String, authorization: String? = nil, topic: String? = nil, pushType: String? = nil,
                priority: String? = nil, apnsID: String? = nil, expiration: String? = nil, collapseID: String? = nil,
                body: [UInt8] = [], bodyLength: Int? = nil, connection: UInt64 = 1, stream: Int32 = 1, connectionRequests: Int = 1) {
        self.method = method
        self.path = path
        self.authorization = authorization
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.apnsID = apnsID
        self.expiration = expiration
        self.collapseID = collapseID
        self.body = body
        self.bodyLength = bodyLength ?? body.count
        self.connection = connection
        self.stream = stream
        self.connectionRequests = connectionRequests
    }
}
