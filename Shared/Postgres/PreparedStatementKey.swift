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

    static let sampledBytes = 64

    func hash(into hasher: inout Hasher) {
        hasher.combine(types)
        let utf8 = sql.utf8
        hasher.combine(utf8.count)
        let sampled: Void? = utf8.withContiguousStorageIfAvailable { bytes in
            let n = Self.sampledBytes
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.prefix(n))))
            if bytes.count > n {
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(min(n, bytes.count - n)))))
            }
        }
        if sampled == nil { hasher.combine(sql) }
    }
}
