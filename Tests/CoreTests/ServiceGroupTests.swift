import TestSupport
import Foundation
import MailwakeCore
import Testing

/// A service made of a closure.
struct ClosureService: Service {
    let name: String
    let body: @Sendable () async throws -> Void
    init(_ name: String, _ body: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.body = body
    }
    func run() async throws { try await body() }
}

/// Runs until cancelled, recording start and stop.
func waitingService(_ name: String, _ recorder: Recorder, started: Flag? = nil) -> ClosureService {
    ClosureService(name) {
        recorder.append("start \(name)")
        started?.set()
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch {
            // Take a moment to stop, so the order is visible.
            try? await Task.sleep(for: .milliseconds(Int.random(in: 1...5)))
            recorder.append("stop \(name)")
            throw error
        }
    }
}

struct ServiceFailure: Error, CustomStringConvertible {
    var description: String { "disk on fire" }
}

@Suite struct ServiceGroupTests {
    func group(_ services: [any Service], grace: Duration = .seconds(60), sink: MemoryLogSink) -> ServiceGroup {
        ServiceGroup(services: services, configuration: .init(gracePeriod: grace, signals: []),
                     logger: Logger(service: "test", level: .trace, sink: sink))
    }

    func messages(_ sink: MemoryLogSink, _ message: String) -> [String] {
        sink.all.filter { $0.message == message }.map { $0.metadata["component"]?.description ?? "" }
    }

    @Test func stopsInReverseOrderOnTrigger() async throws {
        let recorder = Recorder()
        let sink = MemoryLogSink()
        let started = (0..<3).map { _ in Flag() }
        let g = group(["db", "queue", "http"].enumerated().map { waitingService($1, recorder, started: started[$0]) }, sink: sink)
        let run = Task { await g.runReturningExitCode() }
        for f in started { try await f.wait() }
        g.triggerGracefulShutdown()
        #expect(await run.value == .success)
        #expect(recorder.all.filter { $0.hasPrefix("stop") } == ["stop http", "stop queue", "stop db"])
        #expect(messages(sink, "starting service") == ["db", "queue", "http"])
        #expect(messages(sink, "stopping service") == ["http", "queue", "db"])
        #expect(messages(sink, "service stopped") == ["http", "queue", "db"])
        #expect(sink.all.contains { $0.message == "shutting down" && $0.metadata["reason"] == "shutdown requested" })
        #expect(sink.all.last?.message == "all services stopped")
    }

    @Test func aFailingServiceStopsTheOthersAndTheGroupFails() async throws {
        let recorder = Recorder()
        let sink = MemoryLogSink()
        let up = (0..<2).map { _ in Flag() }
        let failing = ClosureService("imap") {
            try await up[0].wait()
            try await up[1].wait()
            throw ServiceFailure()
        }
        let g = group([waitingService("db", recorder, started: up[0]), failing, waitingService("http", recorder, started: up[1])],
                      sink: sink)
        do {
            try await g.run()
            Issue.record("expected a failure")
        } catch {
            #expect(error.failures.map(\.service) == ["imap"])
            #expect(error.abandoned == [])
            #expect(error.description == "service group: imap failed: disk on fire")
        }
        #expect(recorder.all.filter { $0.hasPrefix("stop") } == ["stop http", "stop db"])
        let failure = try #require(sink.all.first { $0.message == "service failed; shutting down" })
        #expect(failure.level == .error)
        #expect(failure.metadata["component"] == "imap")
        #expect(failure.metadata["error"] == "disk on fire")
        #expect(messages(sink, "stopping service") == ["http", "db"])
    }

    @Test func serviceIgnoringCancellationIsAbandonedAfterTheGracePeriod() async throws {
        let recorder = Recorder()
        let sink = MemoryLogSink()
        let gate = Gate()
        defer { gate.open() }
        let started = Flag()
        let stubborn = ClosureService("stubborn") {
            started.set()
            await gate.wait()  // ignores cancellation
        }
        let dbUp = Flag()
        let g = group([waitingService("db", recorder, started: dbUp), stubborn], grace: .milliseconds(300), sink: sink)
        let run = Task { () -> ServiceGroupError? in
            do {
                try await g.run()
                return nil
            } catch let error as ServiceGroupError {
                return error
            } catch {
                return nil
            }
        }
        try await started.wait()
        try await dbUp.wait()
        let clock = ContinuousClock()
        let begin = clock.now
        g.triggerGracefulShutdown()
        let result = await run.value
        let error = try #require(result)
        let elapsed = clock.now - begin
        #expect(error.abandoned == ["stubborn"])
        #expect(error.failures.isEmpty)
        #expect(elapsed >= .milliseconds(300))
        // The next service is still stopped properly after the abandoned one.
        #expect(recorder.all.contains("stop db"))
        let abandoned = try #require(sink.all.first { $0.message == "service did not stop within the grace period; abandoning it" })
        #expect(abandoned.level == .error)
        #expect(abandoned.metadata["component"] == "stubborn")
        #expect(abandoned.metadata["grace_seconds"] == .double(0.3))
        #expect(messages(sink, "stopping service") == ["stubborn", "db"])
    }

    @Test func exitCodesForMain() async throws {
        let sink = MemoryLogSink()
        let early = group([ClosureService("oneshot") {}], sink: sink)
        #expect(await early.runReturningExitCode() == .failure)
        #expect(sink.all.contains { $0.message == "service returned before shutdown; shutting down" })

        let clean = group([waitingService("w", Recorder())], sink: MemoryLogSink())
        clean.triggerGracefulShutdown()  // before run: stops right after starting
        #expect(await clean.runReturningExitCode() == .success)

        #expect(await group([], sink: MemoryLogSink()).runReturningExitCode() == .success)

        // An error other than cancellation while stopping is a failure.
        let messy = group([ClosureService("messy") {
            do { try await Task.sleep(for: .seconds(3600)) } catch { throw ServiceFailure() }
        }], sink: sink)
        let run = Task { await messy.runReturningExitCode() }
        try await Task.sleep(for: .milliseconds(20))
        messy.triggerGracefulShutdown()
        #expect(await run.value == .failure)
        #expect(sink.all.contains { $0.message == "service failed while stopping" && $0.metadata["component"] == "messy" })
    }

    @Test func cancellingTheRunningTaskShutsDownGracefully() async throws {
        let recorder = Recorder()
        let sink = MemoryLogSink()
        let up = Flag()
        let g = group([waitingService("a", recorder), waitingService("b", recorder, started: up)], sink: sink)
        let run = Task { await g.runReturningExitCode() }
        try await up.wait()
        run.cancel()
        #expect(await run.value == .success)
        #expect(recorder.all.filter { $0.hasPrefix("stop") } == ["stop b", "stop a"])
        // The group waited for each service: cancelling the caller's task does
        // not end the supervision early.
        let reason = "the task running the service group was cancelled"
        #expect(sink.all.contains { $0.message == "shutting down" && $0.metadata["reason"] == .string(reason) })
        #expect(messages(sink, "service stopped") == ["b", "a"])
    }

    /// A real SIGTERM to this test process. Safe: the group sets SIGTERM's
    /// disposition to ignore before any service starts, and libdispatch's
    /// own handler replaces that once the source is registered, so the
    /// process never has the default (terminating) action while we signal.
    /// Signals sent before the source is registered are ignored, hence the retry.
    @Test func realSIGTERMStopsTheGroupCleanly() async throws {
        let sink = MemoryLogSink()
        let recorder = Recorder()
        let up = Flag()
        let g = ServiceGroup(
            services: [waitingService("worker", recorder, started: up)],
            configuration: .init(gracePeriod: .seconds(60), signals: [SIGTERM]),
            logger: Logger(service: "test", sink: sink))
        let run = Task { await g.runReturningExitCode() }
        try await up.wait()
        let deadline = ContinuousClock.now + .seconds(60)
        while !sink.all.contains(where: { $0.message == "shutting down" }), ContinuousClock.now < deadline {
            kill(getpid(), SIGTERM)
            for _ in 0..<50 where !sink.all.contains(where: { $0.message == "shutting down" }) {
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        #expect(await run.value == .success)
        #expect(sink.all.contains { $0.message == "shutting down" && $0.metadata["reason"] == "received SIGTERM" })
        #expect(recorder.all == ["start worker", "stop worker"])
    }
}
