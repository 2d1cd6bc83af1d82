/// The relay refused a heartbeat.
struct HeartbeatError: Error, CustomStringConvertible {
    var status: Int
    var detail: String
    var description: String { "the relay answered \(status) to the heartbeat: \(detail.prefix(200))" }
}
