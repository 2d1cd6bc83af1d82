import Synchronization

/// The set of mailbox ids counted failing by the last heartbeat, shared by copies of the service.
final class SharedFailingSet: Sendable {
    private let storage = Mutex<Set<Int64>>([])
    var value: Set<Int64> {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
