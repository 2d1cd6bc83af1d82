import Synchronization

/// The session accounts answered a simulated device's registration, sent as `Mailwake-Session` on its later calls.
final class AccountsSessionBox: Sendable {
    private let value = Mutex<String?>(nil)
    var session: String? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
