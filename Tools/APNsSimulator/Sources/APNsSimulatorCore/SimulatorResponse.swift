/// What the simulator answers to one request, and how the transport should
/// send it.
public struct SimulatorResponse: Sendable, Equatable {
    public var status: Int
    /// The `apns-id` response header, when there is one.
    public var apnsID: String?
    /// The body (JSON), empty for none.
    public var body: [UInt8]
    /// Milliseconds to hold the response back (other streams go on meanwhile).
    public var delayMS: Int
    /// Send GOAWAY on the connection after this stream.
    public var goaway: Bool

    public init(status: Int, apnsID: String? = nil, body: [UInt8] = [], delayMS: Int = 0, goaway: Bool = false) {
        self.status = status
        self.apnsID = apnsID
        self.body = body
        self.delayMS = delayMS
        self.goaway = goaway
    }

    /// A JSON response.
    static func json(_ status: Int, _ body: [UInt8]) -> SimulatorResponse {
        SimulatorResponse(status: status, body: body)
    }
}
