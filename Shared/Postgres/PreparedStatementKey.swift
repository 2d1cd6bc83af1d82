/// What a prepared statement is cached under: its SQL text and parameter types.
///
/// Hashing reads the text's length, its first and last 64 bytes and the
/// types, not the whole text: statements are the program's own (no
/// attacker chooses them) and run many times, some of them kilobytes long,
/// so hashing all of it on every query cost more than the look-up saves.
/// Equality still compares the whole text, so two statements that hash alike
/// are told apart.
struct PreparedStatementKey: Hashable {
    let sql: String
    let types: [PostgresDataType]

    private static let sampledBytes = 64

    init(_ query: PostgresQuery) {
        sql = query.sql
        types = query.bindings.types
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(types)
        hasher.combine(sql.utf8.count)
        let sampled: Void? = sql.utf8.withContiguousStorageIfAvailable { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.prefix(Self.sampledBytes)))
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.suffix(Self.sampledBytes)))
        }
        if sampled == nil { hasher.combine(sql) }
    }
}
