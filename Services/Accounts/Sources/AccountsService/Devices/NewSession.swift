/// A device session being opened by a registration.
struct NewSession: Sendable {
    var sessionID: String
    var appVersion: String
    var clientAddress: String
}
