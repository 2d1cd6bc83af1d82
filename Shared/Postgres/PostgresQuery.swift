/// Parameter values for a statement, in order (`$1`, `$2`, …), already in
/// binary form with their type OIDs.
public struct PostgresBindings: Sendable, Hashable {
    /// One OID per parameter.
    public private(set) var types: [PostgresDataType] = []
    /// All non-NULL values back to back.
    var storage: [UInt8] = []
    /// Start offset in `storage` per parameter, -1 for NULL.
    var offsets: [Int] = []
    var lengths: [Int] = []

    public init() {}

    public var count: Int { types.count }

    /// Makes room for `parameters` more parameters and `bytes` more bytes of values, so that binding a statement's
    /// parameters does not grow four arrays step by step.
    public mutating func reserveCapacity(parameters: Int, bytes: Int) {
        types.reserveCapacity(types.count + parameters)
        offsets.reserveCapacity(offsets.count + parameters)
        lengths.reserveCapacity(lengths.count + parameters)
        storage.reserveCapacity(storage.count + bytes)
    }

    /// Appends a value as the next parameter (inlinable: the caller's module specializes the encoding).
    @inlinable public mutating func append(_ value: some PostgresEncodable) {
        record(type(of: value).postgresType, isNull: value.isPostgresNull) { value.encode(into: &$0) }
    }

    /// Records one parameter: its type, and unless NULL the bytes `encode` appends.
    @usableFromInline mutating func record(_ type: PostgresDataType, isNull: Bool, encode: (inout [UInt8]) -> Void) {
        types.append(type)
        if isNull {
            offsets.append(-1)
            lengths.append(0)
        } else {
            let start = storage.count
            encode(&storage)
            offsets.append(start)
            lengths.append(storage.count - start)
        }
    }

    /// Appends a value of unknown static type.
    public mutating func append(any value: any PostgresEncodable) {
        append(value)
    }
}

/// A statement with its parameters. Values never become SQL text: write
///
///     let q: PostgresQuery = "SELECT id FROM users WHERE email = \(email)"
///
/// and the interpolation turns into `$1` with `email` bound as a parameter.
/// Interpolating a type that is not `PostgresEncodable` does not compile.
/// Identifiers (table names built at run time) go through
/// `\(identifier: name)`, which quotes them.
public struct PostgresQuery: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The SQL text with `$n` placeholders (safe to log: no values).
    public var sql: String
    public var bindings: PostgresBindings

    /// A statement whose text the caller built; values still belong in `bindings`.
    public init(unsafeSQL sql: String, bindings: PostgresBindings = PostgresBindings()) {
        self.sql = sql
        self.bindings = bindings
    }

    public init(stringLiteral value: String) {
        sql = value
        bindings = PostgresBindings()
    }

    public init(stringInterpolation: StringInterpolation) {
        sql = stringInterpolation.sql
        bindings = stringInterpolation.bindings
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var bindings = PostgresBindings()

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
        }

        public mutating func appendLiteral(_ literal: String) { sql += literal }

        /// A parameter: becomes `$n`.
        public mutating func appendInterpolation(_ value: some PostgresEncodable) {
            bindings.append(value)
            sql += "$\(bindings.count)"
        }

        /// An optional parameter: NULL when nil.
        public mutating func appendInterpolation<T: PostgresEncodable>(_ value: T?) {
            bindings.append(value)
            sql += "$\(bindings.count)"
        }

        /// An array parameter: becomes `$n` bound as a PostgreSQL array.
        public mutating func appendInterpolation<E: PostgresArrayElement>(array: [E]) {
            bindings.append(PostgresArray(array))
            sql += "$\(bindings.count)"
        }

        /// A quoted identifier (table, column, channel name): `"name"` with `"` doubled.
        public mutating func appendInterpolation(identifier: String) {
            sql += PostgresQuery.quoteIdentifier(identifier)
        }
    }

    /// `"name"` with embedded quotes doubled; NUL characters removed.
    public static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingAll("\u{0}", with: "").replacingAll("\"", with: "\"\"") + "\""
    }

    /// The SQL text only: never the values.
    public var description: String { sql }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var out = ""
        var rest = self[...]
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        out += rest
        return out
    }
}
