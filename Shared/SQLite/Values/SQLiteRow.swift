/// One result row: column names and values, copied out of SQLite.
public struct SQLiteRow: Sendable, Hashable {
    /// Column names as SQLite reports them (the `AS` alias when there is one).
    public let columns: [String]
    public let values: [SQLiteValue]

    public init(columns: [String], values: [SQLiteValue]) {
        precondition(columns.count == values.count, "one value per column")
        self.columns = columns
        self.values = values
    }

    public var count: Int { values.count }

    /// The value at `index`.
    public subscript(index: Int) -> SQLiteValue { values[index] }

    /// The value of `column` (exact name first, then ignoring ASCII case as SQL does), or nil.
    public subscript(column: String) -> SQLiteValue? {
        index(of: column).map { values[$0] }
    }

    /// The value of `column` decoded as `T`.
    ///
    /// Throws `.noSuchColumn` or `.typeMismatch`; the message names the
    /// column and the types, never the value.
    public func get<T: SQLiteDecodable>(_ column: String, as type: T.Type = T.self) throws(SQLiteError) -> T {
        guard let i = index(of: column) else {
            throw SQLiteError(.noSuchColumn, "no column named '\(column)' in the result")
        }
        return try decode(i, name: column)
    }

    /// The value at `index` decoded as `T`.
    public func get<T: SQLiteDecodable>(_ index: Int, as type: T.Type = T.self) throws(SQLiteError) -> T {
        guard values.indices.contains(index) else {
            throw SQLiteError(.noSuchColumn, "no column \(index) in a result of \(values.count)")
        }
        return try decode(index, name: columns[index])
    }

    private func decode<T: SQLiteDecodable>(_ i: Int, name: String) throws(SQLiteError) -> T {
        guard let v = T(sqliteValue: values[i]) else {
            throw SQLiteError(.typeMismatch, "column '\(name)' holds \(values[i].typeName), cannot be read as \(T.self)")
        }
        return v
    }

    private func index(of column: String) -> Int? {
        if let i = columns.firstIndex(of: column) { return i }
        let lowered = column.lowercased()
        return columns.firstIndex { $0.lowercased() == lowered }
    }
}
