import TestSupport
import Foundation
import MailwakeCore
import Testing

@Suite struct LoggingTests {
    func object(_ line: String) throws -> [String: Any] {
        let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(parsed as? [String: Any])
    }

    @Test func jsonLinesEscapeControlCharactersAndRoundTrip() throws {
        let sink = MemoryLogSink()
        let logger = Logger(service: "outpost", sink: sink)
        let nasty = "quote \" backslash \\ nl \n cr \r tab \t nul \u{0} bell \u{7} esc \u{1B} del \u{7F} ls \u{2028} ps \u{2029} emoji 👋 é"
        logger.info(nasty, ["field": .string(nasty)])
        let line = try #require(sink.lines.first)
        // One physical line, no raw control characters, no raw U+2028/2029.
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x2028 || $0.value == 0x2029 })
        #expect(line.contains(#"\u0000"#))
        #expect(line.contains(#"\u001b"#))
        #expect(line.contains(#"\u2028"#))
        let json = try object(line)
        #expect(json["msg"] as? String == nasty)
        #expect(json["field"] as? String == nasty)
        #expect(json["service"] as? String == "outpost")
        #expect(json["level"] as? String == "info")
    }

    @Test func fieldOrderTimestampAndTypes() throws {
        let sink = MemoryLogSink()
        Logger(service: "relay", sink: sink).warning("x", ["b": 1, "a": 2.5, "c": true, "d": "s"])
        let line = try #require(sink.lines.first)
        #expect(line.hasPrefix(#"{"ts":""#))
        #expect(line.contains(#"","level":"warning","msg":"x","service":"relay","a":2.5,"b":1,"c":true,"d":"s"}"#))
        let ts = try #require(try object(line)["ts"] as? String)
        #expect(ts.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression) != nil)
        // Non-finite doubles are written as null (JSON has no NaN).
        Logger(service: "relay", sink: sink).info("nan", ["v": .double(.nan)])
        #expect(try object(sink.lines[1])["v"] is NSNull)
    }

    @Test func requestIDMetadataAndMerging() throws {
        let sink = MemoryLogSink()
        let base = Logger(service: "accounts", sink: sink).with("component", "http")
        let request = base.with("request_id", "req-42")
        request.info("handled", ["status": 200, "component": "override"])
        base.info("no request")
        let first = try object(sink.lines[0])
        #expect(first["request_id"] as? String == "req-42")
        #expect(first["status"] as? Int == 200)
        #expect(first["component"] as? String == "override")
        #expect(try object(sink.lines[1])["request_id"] == nil)
        // Metadata cannot overwrite the fixed fields.
        request.info("spoof", ["level": "critical", "service": "evil", "msg": "m", "ts": "t"])
        let spoof = try object(sink.lines[2])
        #expect(spoof["level"] as? String == "info")
        #expect(spoof["service"] as? String == "accounts")
        #expect(spoof["msg"] as? String == "spoof")
    }

    @Test func levelsFilterAndMemorySinkKeepsRecords() {
        let sink = MemoryLogSink()
        var logger = Logger(service: "t", level: .notice, sink: sink)
        logger.debug("dropped")
        logger.info("dropped")
        logger.notice("kept")
        logger.error("kept too")
        logger.level = .trace
        logger.trace("now kept")
        #expect(sink.all.map(\.message) == ["kept", "kept too", "now kept"])
        #expect(sink.all.map(\.level) == [.notice, .error, .trace])
        #expect(LogLevel(name: "WARNING") == .warning)
        #expect(LogLevel(name: "verbose") == nil)
        // Messages below the level are never built.
        let built = Flag()
        Logger(service: "t", level: .error, sink: sink).info({ built.set(); return "x" }())
        #expect(!built.isSet)
    }

    @Test func jsonLinesSinkWritesWholeLinesFromManyThreads() async throws {
        // Close-on-exec, so no child another test spawns meanwhile holds the write end (the read
        // would then never see EOF); read to the end on a thread of its own, never the pool's.
        let fds = try #require(FileDescriptorIO.makePipe())
        let sink = JSONLinesLogSink(fileDescriptor: fds.write)
        let readEnd = fds.read
        let reader = Task { await Blocking.run { FileHandle(fileDescriptor: readEnd, closeOnDealloc: true).readDataToEndOfFile() } }
        let logger = Logger(service: "sink", sink: sink)
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<200 { logger.info(String(repeating: "x", count: 500), ["t": .int(t), "i": .int(i)]) }
                }
            }
        }
        close(fds.write)
        let text = String(decoding: await reader.value, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "")
        #expect(lines.count == 8 * 200 + 1)
        for line in lines.dropLast() { _ = try object(String(line)) }
    }
}
