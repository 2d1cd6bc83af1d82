/// Reads complete responses from a stream: a line, and when it ends in a
/// literal announcement `{N}`, the N bytes and the line that continues it,
/// until a line ends without one. Everything is bounded.
public struct IMAPResponseReader {
    /// A response (literals included) longer than this is refused.
    public let maxResponseBytes: Int
    /// A single line (outside literals) longer than this is refused.
    public let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var chunk: [UInt8] = []

    public init(maxResponseBytes: Int = 16 << 20, maxLineBytes: Int = 64 << 10) {
        self.maxResponseBytes = maxResponseBytes
        self.maxLineBytes = maxLineBytes
    }

    public enum Failure: Error, Sendable, Equatable {
        case stream(TLSStream.Failure)
        case closed
        case tooLong(String)
    }

    /// The next response's bytes; waits at most `timeout` for each read (nil: forever).
    public mutating func next(from stream: TLSStream, timeout: Duration?) throws(Failure) -> [UInt8] {
        var response: [UInt8] = []
        while true {
            let line = try readLine(from: stream, timeout: timeout)
            response += line
            guard let literal = Self.literalLength(endingLine: line) else { return response }
            guard response.count + literal <= maxResponseBytes else {
                throw .tooLong("a response longer than \(maxResponseBytes) bytes")
            }
            response += try readExactly(literal, from: stream, timeout: timeout)
        }
    }

    /// True when bytes are already buffered (a response may be complete without reading).
    public var hasBufferedBytes: Bool { start < buffer.count }

    /// N of a line ending in `{N}` CRLF (or `{N+}`, `~{N}`), else nil.
    static func literalLength(endingLine line: [UInt8]) -> Int? {
        var end = line.count
        if end >= 2, line[end - 2] == 0x0D { end -= 2 } else { end -= 1 }
        guard end >= 3, line[end - 1] == UInt8(ascii: "}") else { return nil }
        var i = end - 2
        if line[i] == UInt8(ascii: "+") { i -= 1 }
        var value = 0
        var multiplier = 1
        var digits = 0
        while i >= 0, line[i] >= 0x30, line[i] <= 0x39 {
            value += Int(line[i] - 0x30) * multiplier
            multiplier *= 10
            digits += 1
            guard digits <= 10 else { return nil }
            i -= 1
        }
        guard digits > 0, i >= 0, line[i] == UInt8(ascii: "{") else { return nil }
        return value
    }

    private mutating func readLine(from stream: TLSStream, timeout: Duration?) throws(Failure) -> [UInt8] {
        var scanned = start
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start...newline])
                start = newline + 1
                compact()
                return line
            }
            scanned = buffer.count
            guard buffer.count - start <= maxLineBytes else { throw .tooLong("a line longer than \(maxLineBytes) bytes") }
            try fill(from: stream, timeout: timeout)
        }
    }

    private mutating func readExactly(_ count: Int, from stream: TLSStream, timeout: Duration?) throws(Failure) -> [UInt8] {
        while buffer.count - start < count { try fill(from: stream, timeout: timeout) }
        let out = Array(buffer[start..<start + count])
        start += count
        compact()
        return out
    }

    private mutating func fill(from stream: TLSStream, timeout: Duration?) throws(Failure) {
        let n: Int
        do { n = try stream.read(into: &chunk, capacity: 32 << 10, timeout: timeout) } catch { throw .stream(error) }
        guard n > 0 else { throw .closed }
        buffer += chunk[0..<n]
    }

    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 << 10)
            start = 0
        } else if start > 32 << 10 {
            buffer.removeFirst(start)
            start = 0
        }
    }
}
