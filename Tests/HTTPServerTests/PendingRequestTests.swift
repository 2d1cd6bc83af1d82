@testable import MailwakeHTTPServer
import Testing

/// A request's handler task and deadline action capture the request; whatever
/// order they are attached and detached in, nothing is kept alive after.
struct PendingRequestTests {
    /// Never dereferenced: these tests neither answer nor respond.
    private static var unusedRequest: OpaquePointer { OpaquePointer(bitPattern: 0x1000)! }

    @Test func aHandlerThatFinishedBeforeItsTaskWasAttachedLeavesNothingBehind() async {
        weak var released: PendingRequest?
        do {
            let pending = PendingRequest(Self.unusedRequest, deadline: 0)
            released = pending
            // The handler ran to its end on the pool before the listener's thread attached it.
            let task = Task { pending.detach() }
            await task.value
            pending.attach(task: task) { _ = pending.deadline }
        }
        #expect(released == nil, "the request and its deadline action hold each other")
    }

    @Test func aHandlerThatFinishesAfterItsTaskWasAttachedLeavesNothingBehind() async {
        weak var released: PendingRequest?
        do {
            let pending = PendingRequest(Self.unusedRequest, deadline: 0)
            released = pending
            let (stream, go) = AsyncStream.makeStream(of: Void.self)
            let task = Task {
                for await _ in stream { break }
                pending.detach()
            }
            pending.attach(task: task) { _ = pending.deadline }
            go.yield()
            await task.value
        }
        #expect(released == nil)
    }
}
