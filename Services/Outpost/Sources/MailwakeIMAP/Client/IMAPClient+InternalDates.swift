extension IMAPClient {
    /// UIDs of the selected folder whose INTERNALDATE is at or after `since` (Unix seconds), ascending.
    ///
    /// SEARCH SINCE compares dates only (RFC 3501 §6.4.4), so the times are
    /// fetched (`UID FETCH 1:* (UID INTERNALDATE)`) and compared here; a
    /// message the server gives no INTERNALDATE counts as recent.
    public func uids(receivedSince since: Int64) throws(IMAPError) -> [UInt32] {
        let responses = try command("UID FETCH", raw: " 1:* (UID INTERNALDATE)")
        var found = Set<UInt32>()
        for response in responses {
            guard case .data("FETCH", _, let values) = response, let uid = Self.attribute("UID", in: values)?.number else { continue }
            let date = Self.attribute("INTERNALDATE", in: values)?.text.flatMap(IMAPDate.unixSeconds)
            if (date ?? since) >= since { found.insert(uid) }
        }
        return found.sorted()
    }
}
