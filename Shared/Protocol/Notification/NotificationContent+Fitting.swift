extension NotificationContent {
    /// Returns a copy whose sealed envelope fits the APNs payload limit.
    ///
    /// The subject is shortened first and the sender name second, each on a
    /// character (grapheme) boundary and ended with `…` (§6). Throws
    /// `too_large` when even empty fields do not fit (a huge mailbox label,
    /// address or reference).
    ///
    /// - Parameters:
    ///   - context: the envelope context the plaintext will be sealed under.
    ///   - limit: the payload limit, 4096 by default.
    public func fitted(for context: EncryptionContext, limit: Int = APNsPayload.maxBytes,
                       liveActivity: APNsPayload.LiveActivitySettings = .init()) throws(ProtocolError) -> NotificationContent {
        try fitted(toPlaintextBytes: try Self.plaintextBudget(for: context, limit: limit, liveActivity: liveActivity))
    }

    /// The largest plaintext (bytes) whose sealed envelope under `context` fits `limit`.
    ///
    /// Only the ciphertext length varies with the plaintext: the payload is a
    /// fixed part plus b64u(plaintext + 16 bytes). Throws `too_large` when
    /// not even an empty plaintext fits.
    public static func plaintextBudget(for context: EncryptionContext, limit: Int = APNsPayload.maxBytes,
                                       liveActivity: APNsPayload.LiveActivitySettings = .init()) throws(ProtocolError) -> Int {
        let fixed = APNsPayload.size(context: context, plaintextBytes: 0, liveActivity: liveActivity) - Base64URL.encodedLength(of: 16)
        var budget = max(0, (limit - fixed) * 3 / 4 - 16 + 2)
        while budget > 0, fixed + Base64URL.encodedLength(of: budget + 16) > limit { budget -= 1 }
        guard fixed + Base64URL.encodedLength(of: 16) <= limit else {
            throw ProtocolError(.tooLarge, "the envelope does not fit an APNs payload even when empty")
        }
        return budget
    }

    /// Returns a copy whose plaintext JSON is at most `budget` bytes, shortening
    /// the subject first and the sender name second.
    func fitted(toPlaintextBytes budget: Int) throws(ProtocolError) -> NotificationContent {
        if jsonBytes.count <= budget { return self }

        var copy = self
        copy.subject = Self.shorten(subject, budget: budget) { s in
            var c = self
            c.subject = s
            return c.jsonBytes.count
        }
        if copy.jsonBytes.count <= budget { return copy }

        let withSubject = copy
        copy.from.name = Self.shorten(from.name, budget: budget) { s in
            var c = withSubject
            c.from.name = s
            return c.jsonBytes.count
        }
        guard copy.jsonBytes.count <= budget else {
            throw ProtocolError(.tooLarge, "the notification does not fit an APNs payload after shortening subject and sender name")
        }
        return copy
    }

    /// The longest prefix of `value` (in characters) plus `…` whose measured
    /// size fits `budget`; an ellipsis alone when nothing fits.
    private static func shorten(_ value: String, budget: Int, measure: (String) -> Int) -> String {
        guard !value.isEmpty else { return value }
        let chars = Array(value)
        var best = ellipsis
        var lo = 0, hi = chars.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            let candidate = String(chars[0..<mid]) + ellipsis
            if measure(candidate) <= budget {
                best = candidate
                lo = mid + 1
            } else {
                hi = mid - 1
            }
        }
        return best
    }
}
