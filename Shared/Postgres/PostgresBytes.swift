/// `bytea` as an array element, for `unnest($1::bytea[])` batch writes
/// (`[UInt8]` itself is the scalar `bytea`).
public struct PostgresBytes: Sendable, Hashable, PostgresArrayElement {
    public var bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public static var postgresType: PostgresDataType { .bytea }
    public static var postgresArrayType: PostgresDataType { .byteaArray }
    public func encode(into buffer: inout [UInt8]) { buffer.append(contentsOf: bytes) }
    public init(postgresBytes bytes: ArraySlice<UInt8>, type: PostgresDataType) throws(PostgresDecodingFailure) {
        guard type == .bytea else { throw .typeMismatch(type) }
        self.bytes = Array(bytes)
    }
}
