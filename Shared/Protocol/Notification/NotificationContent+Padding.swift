extension NotificationContent {
    /// The sizes (bytes) a padded plaintext takes, smallest first (§6, revision 2).
    public static let paddingBuckets = [512, 1024, 2048]

    /// The bytes `"pad":""` adds to a plaintext object before its zeros: `,"pad":""`.
    static let padOverhead = 9

    /// The plaintext to seal under `context`: shortened (§6) to fit the largest
    /// bucket whose envelope fits the APNs payload limit, then padded with a
    /// `pad` of ASCII `0` to exactly the smallest bucket that holds it.
    ///
    /// Throws `too_large` when not even the smallest bucket fits the payload
    /// limit, or the fields cannot be shortened into it.
    public func paddedPlaintext(for context: EncryptionContext, limit: Int = APNsPayload.maxBytes,
                                liveActivity: APNsPayload.LiveActivitySettings = .init()) throws(ProtocolError) -> [UInt8] {
        let budget = try Self.plaintextBudget(for: context, limit: limit, liveActivity: liveActivity)
        guard let largest = Self.paddingBuckets.last(where: { $0 <= budget }) else {
            throw ProtocolError(.tooLarge, "not even a \(Self.paddingBuckets[0])-byte plaintext fits an APNs payload for this envelope")
        }
        return try Self.pad(try fitted(toPlaintextBytes: largest - Self.padOverhead).jsonBytes)
    }

    /// `json` (a plaintext object) with `"pad": "0…"` added as its last key so
    /// that it is exactly the smallest bucket that holds it.
    public static func pad(_ json: [UInt8]) throws(ProtocolError) -> [UInt8] {
        guard json.count >= 2, json.first == UInt8(ascii: "{"), json.last == UInt8(ascii: "}") else {
            throw .malformed("a plaintext to pad must be a JSON object")
        }
        let empty = json.count == 2
        let overhead = empty ? padOverhead - 1 : padOverhead
        guard let bucket = paddingBuckets.first(where: { $0 >= json.count + overhead }) else {
            throw ProtocolError(.tooLarge, "the plaintext is longer than the largest padding bucket (\(paddingBuckets.last ?? 0) bytes)")
        }
        var out = Array(json.dropLast())
        out.reserveCapacity(bucket)
        out += Array((empty ? #""pad":""# : #","pad":""#).utf8)
        out += [UInt8](repeating: UInt8(ascii: "0"), count: bucket - json.count - overhead)
        out += Array(#""}"#.utf8)
        return out
    }
}
