import CMicroHTTPDShims
import Dispatch
import Synchronization

/// A request handed over by the C shim and not yet answered.
///
/// Whoever answers first (the handler, the deadline, the drain) wins; the C
/// request is touched exactly once more, by that answer.
final class PendingRequest: Sendable {
    /// `@unchecked Sendable` box: the pointer is only used by the single
    /// winner of `answered`, and never after `mw_http_request_respond`.
    private struct Pointer: @unchecked Sendable { let raw: OpaquePointer }

    private let pointer: Pointer
    private let answered = Atomic<Bool>(false)
    /// `@unchecked Sendable`: DispatchWorkItem's `cancel()` is thread-safe and
    /// the item is only cancelled through this box.
    private struct Timer: @unchecked Sendable { let item: DispatchWorkItem }
    private let extras = Mutex<(task: Task<Void, Never>?, deadline: Timer?)>((nil, nil))

    init(_ raw: OpaquePointer) { pointer = Pointer(raw: raw) }

    var isAnswered: Bool { answered.load(ordering: .acquiring) }

    /// Attaches the handler task and deadline timer so whoever answers can stop the other.
    func attach(task: Task<Void, Never>?, deadline: DispatchWorkItem?) {
        let timer = deadline.map(Timer.init(item:))
        extras.withLock { $0 = (task, timer) }
    }

    /// Answers the request if nobody did yet; returns whether this call did.
    @discardableResult
    func answer(_ response: HTTPResponse) -> Bool {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return false }
        let (_, deadline) = extras.withLock { $0 }
        deadline?.item.cancel()
        var names: [UnsafeMutablePointer<CChar>?] = []
        var values: [UnsafeMutablePointer<CChar>?] = []
        for (name, value) in response.headers where Self.isSafeHeader(name, value) {
            names.append(strdup(name))
            values.append(strdup(value))
        }
        defer {
            for p in names { free(p) }
            for p in values { free(p) }
        }
        let raw = pointer.raw
        _ = names.withUnsafeBufferPointer { n in
            values.withUnsafeBufferPointer { v in
                response.body.withUnsafeBufferPointer { body in
                    n.withMemoryRebound(to: UnsafePointer<CChar>?.self) { n2 in
                        v.withMemoryRebound(to: UnsafePointer<CChar>?.self) { v2 in
                            mw_http_request_respond(raw, UInt32(response.status.code), n2.baseAddress, v2.baseAddress, n2.count, body.baseAddress, body.count)
                        }
                    }
                }
            }
        }
        return true
    }

    /// Cancels the handler task (after the deadline or the drain answered).
    func cancelHandler() {
        extras.withLock { $0.task }?.cancel()
    }

    /// Header names are tokens; values carry no CR, LF or NUL (no response splitting).
    static func isSafeHeader(_ name: String, _ value: String) -> Bool {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else { return false }
        return !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}

#if canImport(Glibc)
import Glibc
#endif
