import Foundation
import MailwakePostgres
import Testing

@Suite("Types")
struct TypeTests {
    /// Sends `value` as a parameter, casts it on the server to `sqlType`, reads it back.
    func roundTrip<T: PostgresEncodable & PostgresDecodable & Equatable>(_ value: T, _ sqlType: String,
                                                                         on client: PostgresClient) async throws -> T {
        let rows = try await client.query("SELECT \(value)::\(identifierless: sqlType)")
        return try rows.single().decode(T.self, at: 0)
    }

    @Test("every supported type survives a parameter round trip")
    func everyType() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            #expect(try await roundTrip(true, "bool", on: client) == true)
            #expect(try await roundTrip(false, "bool", on: client) == false)
            #expect(try await roundTrip(Int16(-12345), "int2", on: client) == -12345)
            #expect(try await roundTrip(Int32.min, "int4", on: client) == .min)
            #expect(try await roundTrip(Int64.max, "int8", on: client) == .max)
            #expect(try await roundTrip(Int(-42), "int8", on: client) == -42)
            #expect(try await roundTrip(3.141592653589793, "float8", on: client) == 3.141592653589793)
            #expect(try await roundTrip(Float(1.5), "float4", on: client) == 1.5)
            #expect(try await roundTrip(Double.infinity, "float8", on: client) == .infinity)
            #expect(try await roundTrip("", "text", on: client) == "")
            #expect(try await roundTrip("plain ascii", "text", on: client) == "plain ascii")
            let unicode = "Grüße, 你好, مرحبا, 👩‍👩‍👧‍👦, \u{2028}, 'quote' \"double\" \\ back"
            #expect(try await roundTrip(unicode, "text", on: client) == unicode)
            #expect(try await roundTrip(unicode, "varchar", on: client) == unicode)
            let bytes: [UInt8] = [0, 1, 2, 0xFF, 0x00, 0x7F, 0x80]
            #expect(try await roundTrip(bytes, "bytea", on: client) == bytes)
            #expect(try await roundTrip([UInt8](), "bytea", on: client) == [])
            let uuid = UUID()
            #expect(try await roundTrip(uuid, "uuid", on: client) == uuid)
            let date = Date(timeIntervalSince1970: 1_764_400_000.123456)
            let back = try await roundTrip(date, "timestamptz", on: client)
            #expect(abs(back.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_001)
            let old = Date(timeIntervalSince1970: -1_000_000_000.5)
            #expect(try await roundTrip(old, "timestamptz", on: client) == old)
            let json = PostgresJSONB(#"{"a": [1, 2, {"b": "ü"}]}"#)
            #expect(try await roundTrip(json, "jsonb", on: client) == PostgresJSONB(#"{"a": [1, 2, {"b": "ü"}]}"#))
        }
    }

    @Test("NULL round-trips as nil for every optional type, and a non-optional NULL is a decoding error")
    func nulls() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let row = try await client.query("""
                SELECT \(Int?.none)::int8, \(String?.none)::text, \(Bool?.none)::bool, \(Double?.none)::float8,
                       \([UInt8]?.none)::bytea, \(UUID?.none)::uuid, \(Date?.none)::timestamptz, \(PostgresJSONB?.none)::jsonb
                """).single()
            let values = try row.decode((Int?, String?, Bool?, Double?, [UInt8]?, UUID?, Date?, PostgresJSONB?).self)
            #expect(values.0 == nil && values.1 == nil && values.2 == nil && values.3 == nil)
            #expect(values.4 == nil && values.5 == nil && values.6 == nil && values.7 == nil)
            #expect(row.isNull(at: 0))
            let e = await PG.error { try row.decode(Int.self, at: 0) }
            #expect(e?.code == .decoding)
            let some: Int? = 7
            #expect(try await client.query("SELECT \(some)::int8").scalar(Int?.self) == 7)
        }
    }

    @Test("arrays round-trip, including NULL elements, and work with = ANY")
    func arrays() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let ids: [Int64] = [1, 2, 3, 5, 8]
            let back = try await client.query("SELECT \(array: ids)").single().decode(PostgresArray<Int64>.self, at: 0)
            #expect(try back.nonNull() == ids)
            let names = PostgresArray<String>(["a", nil, "ü"])
            let namesBack = try await client.query("SELECT \(names)").single().decode(PostgresArray<String>.self, at: 0)
            #expect(namesBack.elements == ["a", nil, "ü"])
            let hit = try await client.query("SELECT 5 = ANY(\(array: ids))").single().decode(Bool.self, at: 0)
            #expect(hit)
            let empty = try await client.query("SELECT \(array: [String]())").single().decode(PostgresArray<String>.self, at: 0)
            #expect(empty.elements.isEmpty)
        }
    }

    @Test("an empty value binds as empty, not NULL, before, between and after values with bytes")
    func emptyValuesAmongOthers() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let empty: [UInt8] = []
            let row = try await client.query("""
                SELECT \("")::text, \("a")::text, \(empty)::bytea, \(String?.none)::text, \("b")::text, \("")::text, \(empty)::bytea
                """).single()
            let values = try row.decode((String, String, [UInt8], String?, String, String, [UInt8]).self)
            #expect(values.0 == "" && values.1 == "a" && values.2 == [] && values.3 == nil)
            #expect(values.4 == "b" && values.5 == "" && values.6 == [])
            #expect(!row.isNull(at: 0) && !row.isNull(at: 5) && !row.isNull(at: 6) && row.isNull(at: 3))
        }
    }

    @Test("an array built from a collection through a transform has one element per value, NULLs included")
    func arrayThroughATransform() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let numbers = PostgresArray([1, 2, 3]) { Int64($0 * 10) }
            let names = PostgresArray([1, 2, 3]) { $0 == 2 ? nil : "n\($0)" }
            let row = try await client.query("SELECT \(numbers), \(names)").single()
            #expect(try row.decode(PostgresArray<Int64>.self, at: 0).nonNull() == [10, 20, 30])
            #expect(try row.decode(PostgresArray<String>.self, at: 1).elements == ["n1", nil, "n3"])
        }
    }

    @Test("numeric and uuid decode as text; integers widen")
    func conversions() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let row = try await client.query("""
                                             SELECT 12345.0600::numeric(12,4), -0.5::numeric, 1e20::numeric, \
                                             'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 7::int2, 'NaN'::numeric
                                             """).single()
            #expect(try row.decode(String.self, at: 0) == "12345.0600")
            #expect(try row.decode(String.self, at: 1) == "-0.5")
            #expect(try row.decode(String.self, at: 2) == "100000000000000000000")
            #expect(try row.decode(String.self, at: 3) == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
            #expect(try row.decode(Int64.self, at: 4) == 7)
            #expect(try row.decode(String.self, at: 5) == "NaN")
        }
    }

    @Test("decoding into the wrong type names the column and never the value")
    func mismatch() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let row = try await client.query("SELECT 'secret-value'::text AS label, 300::int4 AS n").single()
            let e = await PG.error { try row.decode(Int.self, named: "label") }
            #expect(e?.code == .decoding)
            #expect(e?.message.contains("label") == true)
            #expect(e?.description.contains("secret-value") == false)
            let narrow = await PG.error { try row.decode(Int16.self, named: "n") }
            #expect(narrow == nil)
            let tooMany = await PG.error { try row.decode((String, Int, Int).self) }
            #expect(tooMany?.code == .decoding)
        }
    }

    @Test("columns decode by name and rows iterate in order")
    func byName() async throws {
        try await PG.withClient(poolSize: 1) { client async throws in
            let rows = try await client.query("SELECT g AS n, 'row ' || g AS label FROM generate_series(1, 3) AS g")
            #expect(rows.count == 3)
            #expect(rows.columns.map(\.name) == ["n", "label"])
            var seen: [String] = []
            for row in rows { seen.append(try row.decode(String.self, named: "label")) }
            #expect(seen == ["row 1", "row 2", "row 3"])
        }
    }
}

extension PostgresQuery.StringInterpolation {
    /// Test-only: a fixed SQL type name spliced into the text (never a value).
    mutating func appendInterpolation(identifierless typeName: String) {
        precondition(typeName.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }, "type names only")
        appendLiteral(typeName)
    }
}
