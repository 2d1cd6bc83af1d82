/// Where a pairing is in PROTOCOL.md §9: registered by the outpost, consented
/// by a device, confirmed by the outpost (only then delivered for), or ended.
enum PairingState: String, Sendable, Hashable {
    case pending, consented, active, ended
}
