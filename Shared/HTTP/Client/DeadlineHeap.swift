/// A binary min-heap of (deadline, request id): when the oldest waiting
/// request's timeout ends, in O(log n) per push and pop.
///
/// Entries are not removed when their request leaves the queue; the engine
/// skips ids it no longer holds when they come up.
struct DeadlineHeap {
    private var items: [(deadline: ContinuousClock.Instant, id: UInt64)] = []

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }
    /// The earliest deadline, if any.
    var first: ContinuousClock.Instant? { items.first?.deadline }

    mutating func push(_ deadline: ContinuousClock.Instant, _ id: UInt64) {
        items.append((deadline, id))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].deadline < items[parent].deadline else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    /// Removes and returns the id with the earliest deadline when that deadline is at or before `now`.
    mutating func popExpired(_ now: ContinuousClock.Instant) -> UInt64? {
        guard let top = items.first, top.deadline <= now else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count, items[l].deadline < items[m].deadline { m = l }
                if r < items.count, items[r].deadline < items[m].deadline { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        if items.isEmpty && items.capacity > 4096 { items = [] }
        return top.id
    }

    mutating func removeAll() { items.removeAll() }
}
