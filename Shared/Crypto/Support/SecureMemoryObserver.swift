#if DEBUG
import Synchronization

/// A test hook (debug builds only) that sees what happens to secret buffers
/// released or copied out in the task that sets it.
///
/// `SecureBytes` reports to the observer of the current task: the bytes just
/// before they are wiped, the same memory just after (before it is freed),
/// and each copy of secret bytes into an ordinary array.
final class SecureMemoryObserver: Sendable {
    /// The observer of the current task, if any.
    @TaskLocal static var current: SecureMemoryObserver?

    /// One wiped buffer: its bytes before the wipe, and whether every byte was zero after it.
    struct Wipe: Sendable {
        var before: [UInt8]
        var zeroAfter: Bool
    }

    private let state = Mutex<(wipes: [Wipe], pending: [UInt8]?, copies: [Int])>(([], nil, []))

    init() {}

    /// Buffers wiped so far, in order.
    var wipes: [Wipe] { state.withLock { $0.wipes } }
    /// Byte counts of secret copies into arrays, in order.
    var copies: [Int] { state.withLock { $0.copies } }

    func willWipe(_ bytes: UnsafeRawBufferPointer) {
        state.withLock { $0.pending = Array(bytes) }
    }

    func didWipe(_ bytes: UnsafeRawBufferPointer) {
        state.withLock { s in
            s.wipes.append(Wipe(before: s.pending ?? [], zeroAfter: bytes.allSatisfy { $0 == 0 }))
            s.pending = nil
        }
    }

    func copiedOut(_ count: Int) {
        state.withLock { $0.copies.append(count) }
    }
}
#endif
