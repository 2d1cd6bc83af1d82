/// A long-lived part of a process: a listener, a worker, a watcher.
///
/// `run()` returns or throws when the service ends. Cancellation of the
/// calling task is the shutdown request: the service stops accepting work,
/// finishes or hands back what it holds within its bounded drain time, then
/// returns. A `ServiceGroup` runs several services and turns SIGTERM/SIGINT
/// into cancellation.
public protocol Service: Sendable {
    /// A short name for logs (`http`, `admin`, `delivery-worker`).
    var name: String { get }

    /// Runs until cancelled or failed.
    func run() async throws
}
