import CHTTPServerShims
import Dispatch
import MailwakeProtocol
import Synchronization

/// A request handed over by the C shim and not yet answered.
///
/// Whoever answers first (the handler, the deadline, the drain) wins; the C
/// request is touched exactly once more, by that answer.
final class PendingRequest: Sendable {
    /// The C request.
    // Safe to send: the pointer is only used by the single winner of
    // `answered`, and never after `mw_http_request_respond`.
    private struct Pointer: @unchecked Sendable { let raw: OpaquePointer }

    private let pointer: Pointer
    private let answered = Atomic<Bool>(false)
    private let extras = Mutex<Extras>(Extras())
    /// Monotonic nanoseconds after which the deadline sweeper expires this request.
    let deadline: UInt64

    init(_ raw: OpaquePointer, deadline: UInt64) {
        pointer = Pointer(raw: raw)
        self.deadline = deadline
    }

    var isAnswered: Bool { answered.load(ordering: .acquiring) }

    /// The handler task and the deadline action, both of which capture this request.
    private struct Extras {
        var task: Task<Void, Never>?
        var onDeadline: (@Sendable () -> Void)?
        /// Set by `detach()`: an `attach` arriving later stores nothing.
        var detached = false
    }

    /// Attaches the handler task and what to do at the deadline.
    ///
    /// The task may have finished, and detached, before its creator gets
    /// here (it runs on the pool while the listener's thread is preempted):
    /// then nothing is stored, or the request and its task would hold each
    /// other forever.
    func attach(task: Task<Void, Never>?, onDeadline: @escaping @Sendable () -> Void) {
        extras.withLock { e in
            guard !e.detached else { return }
            e.task = task
            e.onDeadline = onDeadline
        }
    }

    /// Runs the deadline action once (the sweeper calls it).
    func expire() {
        guard !isAnswered, let action = extras.withLock({ e -> (@Sendable () -> Void)? in
            defer { e.onDeadline = nil }
            return e.onDeadline
        }) else { return }
        action()
    }

    /// Answers the request if nobody did yet; returns whether this call did.
    @discardableResult
    func answer(_ response: HTTPResponse) -> Bool {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return false }
        // The deadline action captures this request: drop it to break the cycle.
        extras.withLock { $0.onDeadline = nil }
        // The safe fields as NUL-terminated strings in one temporary buffer (on the stack unless large), names then
        // values; sized for every field, filled with those that pass.
        var room = 0
        for (name, value) in response.headers { room += name.utf8.count + value.utf8.count + 2 }
        let limit = response.headers.fields.count
        let raw = pointer.raw
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: max(1, room)) { text in
            withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: max(1, 2 * limit)) { fields in
                var at = 0
                func put(_ string: String) -> UnsafePointer<CChar> {
                    let start = text.baseAddress! + at
                    string.withContiguousUTF8 { utf8 in
                        for b in utf8 {
                            text[at] = CChar(bitPattern: b)
                            at += 1
                        }
                    }
                    text[at] = 0
                    at += 1
                    return UnsafePointer(start)
                }
                var count = 0
                for (name, value) in response.headers where Self.isSafeHeader(name, value) {
                    fields[count] = put(name)
                    fields[limit + count] = put(value)
                    count += 1
                }
                response.body.withUnsafeBufferPointer { body in
                    _ = mw_http_request_respond(raw, UInt32(response.status.code), fields.baseAddress, fields.baseAddress! + limit, count,
                                                body.baseAddress, body.count)
                }
            }
        }
        return true
    }

    /// Forgets the handler task once it has finished (breaks the request ↔ task cycle).
    func detach() {
        extras.withLock { $0 = Extras(detached: true) }
    }

    /// Cancels the handler task (after the deadline or the drain answered).
    func cancelHandler() {
        extras.withLock { $0.task }?.cancel()
    }

    /// Header names are tokens; values carry no CR, LF or NUL (no response splitting).
    static func isSafeHeader(_ name: String, _ value: String) -> Bool {
        guard !name.isEmpty, name.withContiguousUTF8({ $0.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") } }) else {
            return false
        }
        return !value.withContiguousUTF8 { $0.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 } }
    }
}

#if canImport(Glibc)
import Glibc
#endif
