import MailwakeProtocol
import Synchronization

/// Devices marked offline and the one notification APNs stores for each.
///
/// As Apple documents for an offline device: APNs accepts the request (200),
/// stores only the last notification for the device (a newer one replaces
/// it), and delivers that one when the device reconnects. Keyed by lower-case
/// token.
public final class OfflineDevices: Sendable {
    /// One offline device: the notification held for it and how many it replaced.
    public struct Entry: Sendable, Hashable {
        public var held: Delivery?
        /// Notifications accepted while offline, the held one included.
        public var accepted: Int = 0
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// Lets requests skip the lock while no device is offline (the common case).
    private let count = Atomic<Int>(0)

    public init() {}

    /// Marks `token` offline (keeping what it holds when it already is).
    public func markOffline(_ token: String) {
        entries.withLock { e in
            if e[token.lowercased()] == nil { e[token.lowercased()] = Entry() }
            count.store(e.count, ordering: .relaxed)
        }
    }

    /// Marks `token` online; returns the notification stored for it, to deliver now.
    public func markOnline(_ token: String) -> Entry? {
        entries.withLock { e in
            let entry = e.removeValue(forKey: token.lowercased())
            count.store(e.count, ordering: .relaxed)
            return entry
        }
    }

    /// Stores `delivery` for its token when that device is offline (replacing
    /// the one held); false when the device is online.
    public func holdIfOffline(_ delivery: Delivery) -> Bool {
        guard count.load(ordering: .relaxed) > 0, let token = delivery.deviceToken?.lowercased() else { return false }
        return entries.withLock { e in
            guard var entry = e[token] else { return false }
            entry.held = delivery
            entry.accepted += 1
            e[token] = entry
            return true
        }
    }

    /// `{"devices":[{"device_token","accepted","held_apns_id"}…]}`.
    public func json() -> [UInt8] {
        let snapshot = entries.withLock { $0 }
        var w = JSONWriter()
        w.beginObject()
        w.beginArray("devices")
        for (token, entry) in snapshot.sorted(by: { $0.key < $1.key }) {
            w.beginObject()
            w.string("device_token", token)
            w.int("accepted", Int64(entry.accepted))
            w.optionalString("held_apns_id", entry.held?.apnsID)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}
