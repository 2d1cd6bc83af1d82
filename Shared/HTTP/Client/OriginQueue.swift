/// One origin's share of the multi handle: its transfers there, how many it
/// may have there at once, and the requests waiting in first-in, first-out order.
///
/// The queue holds request ids; a request cancelled or timed out while
/// waiting leaves its id behind, skipped when it comes up (the engine's
/// `waiting` table is the truth), so removal is O(1).
struct OriginQueue {
    /// Transfers of this origin in the multi handle.
    var active = 0
    /// How many may be in the multi handle at once.
    var limit: Int
    private var ids: [UInt64] = []
    private var head = 0

    init(limit: Int) { self.limit = limit }

    /// Whether no id is queued (live or left behind).
    var isEmpty: Bool { head == ids.count }

    mutating func append(_ id: UInt64) { ids.append(id) }

    /// The oldest queued id, removed; nil when empty. Amortised O(1).
    mutating func popFirst() -> UInt64? {
        guard head < ids.count else { return nil }
        let id = ids[head]
        head += 1
        if head == ids.count {
            ids.removeAll(keepingCapacity: ids.count <= 4096)
            head = 0
        } else if head >= 1024, head * 2 >= ids.count {
            ids.removeFirst(head)
            head = 0
        }
        return id
    }
}
