/// Prepared statements of one connection by SQL text, least recently used evicted.
///
/// A statement is checked out while it runs and checked back in afterwards,
/// so a nested use of the same SQL gets a fresh statement instead of
/// resetting one that is still stepping.
struct SQLiteStatementCache {
    private var entries: [String: (statement: SQLiteStatement, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(0, capacity) }

    var count: Int { entries.count }

    mutating func checkOut(_ sql: String) -> SQLiteStatement? {
        entries.removeValue(forKey: sql)?.statement
    }

    mutating func checkIn(_ statement: SQLiteStatement) {
        guard capacity > 0 else { return }
        clock += 1
        entries[statement.sql] = (statement, clock)
        if entries.count > capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries.removeValue(forKey: oldest.key)
        }
    }

    /// Finalizes every cached statement.
    mutating func removeAll() { entries.removeAll() }
}
