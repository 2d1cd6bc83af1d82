/// A result column: its name and type.
public struct PostgresColumn: Sendable, Hashable {
    public let name: String
    public let type: PostgresDataType
}

/// Result cells copied out of libpq, shared by the rows of one result.
final class PostgresResultStorage: Sendable {
    let columns: [PostgresColumn]
    let rowCount: Int
    let bytes: [UInt8]
    /// Per cell (row * columns + column): start in `bytes`, or -1 for NULL.
    let offsets: [Int]
    let lengths: [Int]

    init(columns: [PostgresColumn], rowCount: Int, bytes: [UInt8], offsets: [Int], lengths: [Int]) {
        self.columns = columns
        self.rowCount = rowCount
        self.bytes = bytes
        self.offsets = offsets
        self.lengths = lengths
    }

    static let empty = PostgresResultStorage(columns: [], rowCount: 0, bytes: [], offsets: [], lengths: [])
}

/// The rows a statement returned, plus its command tag.
public struct PostgresRows: RandomAccessCollection, Sendable {
    let storage: PostgresResultStorage
    /// The command tag (`SELECT 3`, `INSERT 0 1`, `UPDATE 2`).
    public let commandTag: String
    /// Rows affected by INSERT/UPDATE/DELETE/MERGE/SELECT/MOVE/FETCH/COPY (from the tag).
    public let affectedRows: Int

    init(storage: PostgresResultStorage, commandTag: String, affectedRows: Int) {
        self.storage = storage
        self.commandTag = commandTag
        self.affectedRows = affectedRows
    }

    public var columns: [PostgresColumn] { storage.columns }
    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.rowCount }
    public subscript(position: Int) -> PostgresRow {
        precondition(position >= 0 && position < storage.rowCount, "row index out of range")
        return PostgresRow(storage: storage, row: position)
    }

    /// The only row; `.query` error when there are none or several.
    public func single() throws -> PostgresRow {
        guard count == 1 else { throw PostgresError(.query, "expected exactly one row, got \(count)") }
        return self[0]
    }

    /// The first column of the first row decoded as `T`; nil without rows.
    public func scalar<T: PostgresDecodable>(_ type: T.Type = T.self) throws -> T? {
        guard let row = first else { return nil }
        return try row.decode(T.self, at: 0)
    }
}

/// One row. Decode columns by position or name, or all at once into a tuple:
///
///     let (id, email, createdAt) = try row.decode((Int64, String, Date).self)
public struct PostgresRow: Sendable {
    let storage: PostgresResultStorage
    let row: Int

    public var columns: [PostgresColumn] { storage.columns }

    /// Whether column `index` is NULL.
    public func isNull(at index: Int) -> Bool {
        storage.offsets[row * storage.columns.count + index] < 0
    }

    /// Column `index` (0-based) decoded as `T`.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, at index: Int) throws -> T {
        let ncols = storage.columns.count
        guard index >= 0 && index < ncols else {
            throw PostgresError(.decoding, "column index \(index) out of range (\(ncols) columns)")
        }
        let column = storage.columns[index]
        let cell = row * ncols + index
        let offset = storage.offsets[cell]
        do {
            if offset < 0 { return try T.postgresNull() }
            return try T(postgresBytes: storage.bytes[offset..<(offset + storage.lengths[cell])], type: column.type)
        } catch {
            let why: String
            switch error {
            case .unexpectedNull: why = "is NULL"
            case .typeMismatch(let t): why = "has type \(t)"
            case .invalidData(let s): why = "is invalid (\(s))"
            }
            throw PostgresError(.decoding, "column \"\(column.name)\" (\(index)) cannot be decoded as \(T.self): it \(why)")
        }
    }

    /// The column named `name` decoded as `T` (the first such column).
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, named name: String) throws -> T {
        guard let index = storage.columns.firstIndex(where: { $0.name == name }) else {
            throw PostgresError(.decoding, "no column named \"\(name)\"")
        }
        return try decode(T.self, at: index)
    }

    /// All columns, left to right, as a tuple of the given types.
    public func decode<each T: PostgresDecodable>(_ types: (repeat each T).Type) throws -> (repeat each T) {
        var expected = 0
        for _ in repeat (each T).self { expected += 1 }
        guard expected == storage.columns.count else {
            throw PostgresError(.decoding, "decoding \(expected) columns but the row has \(storage.columns.count)")
        }
        var index = 0
        func next<U: PostgresDecodable>(_ type: U.Type) throws -> U {
            defer { index += 1 }
            return try decode(U.self, at: index)
        }
        return (repeat try next((each T).self))
    }
}
