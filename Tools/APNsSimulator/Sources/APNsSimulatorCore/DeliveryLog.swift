#if canImport(Glibc)
import Glibc
#endif
import MailwakeCore
import MailwakeProtocol
import Synchronization

/// The deliveries received: the last `capacity` in memory (already encoded
/// as JSON lines) and, with a record file, every one appended to it.
///
/// Sequence numbers keep growing across `clear()`, so a reader's `since`
/// cursor stays valid. Memory is bounded by `capacity` lines (about 1.5 KB
/// each for a typical encrypted notification).
public final class DeliveryLog: Sendable {
    private struct State {
        var lines: [[UInt8]] = []   // slot (seq - base) % capacity
        var base: UInt64 = 1        // the seq in slot 0
        var nextSeq: UInt64 = 1
        var oldestSeq: UInt64 = 1   // the oldest seq still held
        var fileFailed = false
    }

    public let capacity: Int
    private let state = Mutex(State())
    private let fd: Int32

    /// - Parameters:
    ///   - capacity: deliveries kept in memory, at least 1.
    ///   - recordPath: a file to append every delivery to (created with mode 0644), or nil.
    public init(capacity: Int, recordPath: String?) throws(SimulatorError) {
        self.capacity = max(1, capacity)
        if let recordPath {
            let fd = open(recordPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw SimulatorError("cannot open the record file \(recordPath): \(String(cString: strerror(errno)))") }
            self.fd = fd
        } else {
            fd = -1
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Numbers `delivery`, keeps it and appends it to the record file.
    /// Returns false when the record file could not be written (once it
    /// fails, it is not written again).
    @discardableResult
    public func append(_ delivery: Delivery) -> Bool {
        var delivery = delivery
        return state.withLock { s -> Bool in
            delivery.seq = s.nextSeq
            let line = delivery.jsonLine()
            let slot = Int((s.nextSeq - s.base) % UInt64(capacity))
            if slot == s.lines.count { s.lines.append(line) } else { s.lines[slot] = line }
            s.nextSeq += 1
            if s.nextSeq - s.oldestSeq > UInt64(capacity) { s.oldestSeq = s.nextSeq - UInt64(capacity) }
            guard fd >= 0, !s.fileFailed else { return !s.fileFailed }
            if !FileDescriptorIO.writeAll(fd, line) { s.fileFailed = true }
            return !s.fileFailed
        }
    }

    /// Forgets the deliveries held in memory (the record file is kept).
    public func clear() {
        state.withLock { s in
            s.oldestSeq = s.nextSeq
            s.base = s.nextSeq
            s.lines.removeAll(keepingCapacity: false)
        }
    }

    /// `{"deliveries":[...],"next":SEQ}`: the deliveries after `since`, at
    /// most `limit`; `next` is the seq of the last one returned (or `since`
    /// when none is), to pass as the next `since`.
    public func page(since: UInt64, limit: Int) -> [UInt8] {
        var out: [UInt8] = Array(#"{"deliveries":["#.utf8)
        let next = state.withLock { s -> UInt64 in
            var seq = max(since + 1, s.oldestSeq)
            var returned = 0
            var last = since
            while seq < s.nextSeq, returned < limit {
                let slot = Int((seq - s.base) % UInt64(capacity))
                if returned > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: s.lines[slot].dropLast())  // without the newline
                last = seq
                seq += 1
                returned += 1
            }
            return last
        }
        out.append(contentsOf: Array(#"],"next":"#.utf8))
        out.append(contentsOf: Array(String(next).utf8))
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Deliveries held in memory now.
    public var count: Int { state.withLock { Int($0.nextSeq - $0.oldestSeq) } }

    /// The seq the next delivery gets.
    public var nextSeq: UInt64 { state.withLock { $0.nextSeq } }
}
