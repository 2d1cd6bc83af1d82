internal import CLibSQLite

/// A prepared statement (internal: owned by one connection, used on its thread).
///
/// Values are bound with copies (SQLITE_TRANSIENT through the shim), so
/// SQLite never keeps a pointer into Swift memory. After every use the
/// statement is reset and its bindings cleared, so it holds neither a read
/// transaction nor copies of bound values while it waits in the cache.
final class SQLiteStatement {
    let handle: OpaquePointer
    let db: OpaquePointer
    let sql: String
    private(set) lazy var columnNames: [String] = (0..<sqlite3_column_count(handle)).map { i in
        sqlite3_column_name(handle, i).map { String(cString: $0) } ?? "column\(i)"
    }

    /// Compiles exactly one statement; trailing whitespace, `;` and comments are allowed.
    init(db: OpaquePointer, sql: String, persistent: Bool) throws(SQLiteError) {
        var stmt: OpaquePointer?
        var rc: Int32 = SQLITE_OK
        var trailingStatement = false
        var trailingError = false
        sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            rc = sqlite3_prepare_v3(db, text, -1, persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &stmt, &tail)
            guard rc == SQLITE_OK, stmt != nil, let rest = tail, rest.pointee != 0 else { return }
            // Compile the rest: only whitespace and comments compile to no statement.
            var extra: OpaquePointer?
            let rc2 = sqlite3_prepare_v2(db, rest, -1, &extra, nil)
            if extra != nil { trailingStatement = true }
            if rc2 != SQLITE_OK { trailingError = true }
            sqlite3_finalize(extra)
        }
        guard rc == SQLITE_OK else {
            let error = SQLiteError.from(rc, db: db, context: .sql)
            sqlite3_finalize(stmt)
            throw error
        }
        guard let stmt else { throw SQLiteError(.statementShape, "empty SQL statement") }
        if trailingStatement || trailingError {
            sqlite3_finalize(stmt)
            throw SQLiteError(.statementShape,
                              "more than one SQL statement given where one was expected (use executeScript for scripts without " +
                              "parameters)")
        }
        self.handle = stmt
        self.db = db
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Binds positional values `?1...?n`; the count must match.
    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        guard values.count == parameterCount else {
            throw SQLiteError(.binding, "the statement has \(parameterCount) parameter(s), \(values.count) value(s) given")
        }
        for (i, v) in values.enumerated() { try bind(v, at: Int32(i + 1)) }
    }

    /// Binds named values (`:name`, `@name`, `$name`; a key without its prefix means `:key`).
    /// Every parameter must get a value and every value a parameter.
    func bind(named values: [String: SQLiteValue]) throws(SQLiteError) {
        var bound = Set<Int32>()
        for (key, v) in values {
            var index = sqlite3_bind_parameter_index(handle, key)
            if index == 0, let first = key.first, first != ":", first != "@", first != "$" {
                index = sqlite3_bind_parameter_index(handle, ":" + key)
            }
            guard index > 0 else { throw SQLiteError(.binding, "the statement has no parameter named '\(key)'") }
            try bind(v, at: index)
            bound.insert(index)
        }
        for i in Int32(1)..<Int32(parameterCount + 1) where !bound.contains(i) {
            let name = sqlite3_bind_parameter_name(handle, i).map { String(cString: $0) } ?? "?\(i)"
            throw SQLiteError(.binding, "no value given for parameter \(name)")
        }
    }

    private func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .null:
            rc = sqlite3_bind_null(handle, index)
        case .integer(let v):
            rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v):
            rc = sqlite3_bind_double(handle, index, v)
        case .text(let s):
            var copy = s
            rc = copy.withUTF8 { utf8 in
                // An empty buffer may have no address; SQLite would bind NULL for a NULL pointer.
                guard let base = utf8.baseAddress, !utf8.isEmpty else {
                    return mw_sqlite3_bind_text_copy(handle, index, "", 0)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                    mw_sqlite3_bind_text_copy(handle, index, $0, sqlite3_uint64(utf8.count))
                }
            }
        case .blob(let bytes):
            rc = bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, !raw.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
                return mw_sqlite3_bind_blob_copy(handle, index, base, sqlite3_uint64(raw.count))
            }
        }
        guard rc == SQLITE_OK else {
            throw SQLiteError.from(rc, db: db, context: .binding, what: "binding parameter \(index)")
        }
    }

    /// Advances; true when a row is available.
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError.from(rc, db: db)
        }
    }

    /// The current row, copied out.
    func currentRow() -> SQLiteRow {
        let names = columnNames
        var values = [SQLiteValue]()
        values.reserveCapacity(names.count)
        for i in 0..<Int32(names.count) { values.append(column(i)) }
        return SQLiteRow(columns: names, values: values)
    }

    func column(_ i: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, i))
        case SQLITE_TEXT:
            // Text first, then its length (the documented order).
            guard let text = sqlite3_column_text(handle, i) else { return .text("") }
            let n = Int(sqlite3_column_bytes(handle, i))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: n), as: UTF8.self))
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(handle, i)
            let n = Int(sqlite3_column_bytes(handle, i))
            guard let bytes, n > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: n)))
        default:
            return .null
        }
    }

    /// Resets for the next use and drops the bound copies.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}
