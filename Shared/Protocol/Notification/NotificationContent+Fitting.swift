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
    public func fitted(for context: EncryptionContext, limit: Int = APNsPayload.maxBytes, liveActivity: APNsPayload.LiveActivitySettings = .init()) throws(ProtocolError) -> NotificationContent {
        // The payload size grows with the plaintext size and is otherwise fixed:
        // find the largest plaintext that fits, then shorten until we are below it.
        let fixed = APNsPayload.size(context: context, plaintextBytes: 0, liveActivity: liveActivity)
        guard fixed <= limit else { throw ProtocolError(.tooLarge, "the envelope does not fit an APNs payload even when empty") }
        var budget = 0
        var lo = 0, hi = limit
        while lo <= hi {
            let mid = (lo + hi) / 2
            if APNsPayload.size(context: context, plaintextBytes: mid, liveActivity: liveActivity) <= limit {
                budget = mid
                lo = mid + 1
            } else {
                hi = mid - 1
            }
        }
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
