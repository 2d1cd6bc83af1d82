/// The HKDF `info` of §4: `context ‖ lp(x963(eph_pub)) ‖ lp(x963(device_agreement_pub))`.
enum EnvelopeKeySchedule {
    static func info(context: [UInt8], ephemeral: [UInt8], recipient: [UInt8]) -> [UInt8] {
        var s = SigningInput(capacity: context.count + 140)
        var bytes = context
        s.lp(ephemeral)
        s.lp(recipient)
        bytes.append(contentsOf: s.bytes)
        return bytes
    }
}
