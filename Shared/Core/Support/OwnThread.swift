import CSpawnShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs blocking work (waitpid, blocking reads, sleeps, process start-up) on a new thread of its own.
///
/// Swift's cooperative pool has one thread per core (two on the CI machine),
/// and on Linux Dispatch's global queues run on the same workers: one call
/// that blocks there stalls every task of the process. Blocking work goes to
/// a dedicated thread and the caller awaits it without holding a pool thread.
public enum OwnThread {
    /// Runs `body` on a new thread named `name` (at most 15 bytes are kept) and returns its result.
    public static func run<T: Sendable>(name: String = "mw-own-thread", _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start(name: name) { continuation.resume(returning: body()) }
        }
    }

    /// Runs `body` on a new thread named `name` and returns its result or rethrows its error.
    public static func run<T: Sendable>(name: String = "mw-own-thread", _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            start(name: name) { continuation.resume(with: Result { try body() }) }
        }
    }

    /// The calling thread's name (Dispatch names its workers after their queue, `…default-qos`).
    public static var currentName: String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard mw_thread_get_name(&buffer, buffer.count) == 0 else { return "" }
        return String(nulTerminated: buffer)
    }

    /// Starts a detached thread running `body`.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        final class Box: Sendable {
            let name: String
            let body: @Sendable () -> Void
            init(_ name: String, _ body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
        }
        let box = Unmanaged.passRetained(Box(name, body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let rc = pthread_create(&thread, &attributes, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            mw_thread_set_name(box.name)
            box.body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }
}
