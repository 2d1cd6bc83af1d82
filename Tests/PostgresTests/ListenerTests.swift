import MailwakePostgres
import Testing

/// The next notification on `stream` within `timeout` (skipping `.reconnected` unless asked).
func nextEvent(_ iterator: inout AsyncStream<PostgresListener.Event>.Iterator,
               timeout: Duration = .seconds(60)) async -> PostgresListener.Event? {
    let box = IteratorBox(iterator)
    let result = await withTaskGroup(of: PostgresListener.Event?.self) { group in
        group.addTask { await box.next() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
    iterator = box.iterator
    return result
}

// @unchecked Sendable: each test uses its box from one task at a time; it only carries the iterator across awaits.
final class IteratorBox: @unchecked Sendable {
    var iterator: AsyncStream<PostgresListener.Event>.Iterator
    init(_ iterator: AsyncStream<PostgresListener.Event>.Iterator) { self.iterator = iterator }
    func next() async -> PostgresListener.Event? { await iterator.next() }
}

@Suite("LISTEN/NOTIFY")
struct ListenerTests {
    @Test("a notification sent after subscribing is delivered with its payload")
    func delivers() async throws {
        let server = try await PG.server()
        let listener = PostgresListener(configuration: try PG.configuration(server.url), logger: .disabled)
        let channel = PG.uniqueName("chan")
        let stream = try await listener.subscribe(to: channel)
        var it = stream.makeAsyncIterator()
        try await PG.withClient(poolSize: 1) { client async throws in
            try await client.notify(channel: channel, payload: "héllo 1")
            try await client.notify(channel: PG.uniqueName("other"), payload: "not for us")
            try await client.notify(channel: channel, payload: "héllo 2")
        }
        guard case .notification(let first) = await nextEvent(&it) else { Issue.record("no notification"); return }
        #expect(first.channel == channel && first.payload == "héllo 1")
        guard case .notification(let second) = await nextEvent(&it) else { Issue.record("no second notification"); return }
        #expect(second.payload == "héllo 2")
        await listener.close()
    }

    @Test("notifications reach every subscriber of a channel, and a channel name with quotes works")
    func fanOut() async throws {
        let listener = PostgresListener(configuration: try PG.configuration(try await PG.server().url), logger: .disabled)
        let channel = PG.uniqueName("we\"ird chan")
        var a = try await listener.subscribe(to: channel).makeAsyncIterator()
        var b = try await listener.subscribe(to: channel).makeAsyncIterator()
        try await PG.withClient(poolSize: 1) { try await $0.notify(channel: channel, payload: "x") }
        #expect(await nextEvent(&a) != nil)
        #expect(await nextEvent(&b) != nil)
        await listener.close()
    }

    @Test("closing the listener finishes its streams")
    func closeFinishes() async throws {
        let listener = PostgresListener(configuration: try PG.configuration(try await PG.server().url), logger: .disabled)
        var it = try await listener.subscribe(to: PG.uniqueName("c")).makeAsyncIterator()
        await listener.close()
        #expect(await nextEvent(&it, timeout: .seconds(5)) == nil)
        let e = await PG.error { try await listener.subscribe(to: "again") }
        #expect(e?.code == .poolClosed)
    }

    @Test("subscribing when the server is unreachable throws a connection error")
    func unreachable() async throws {
        let listener = PostgresListener(configuration: try PG.configuration("postgres://u:p@127.0.0.1:1/db?sslmode=disable"),
                                        logger: .disabled)
        let e = await PG.error { try await listener.subscribe(to: "c") }
        #expect(e?.code == .connection)
        await listener.close()
    }
}
