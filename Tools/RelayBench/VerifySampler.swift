import Foundation
import Synchronization

/// Times a few verifies now and then while a phase runs, on a thread of its
/// own: the verify's cost under the same load as the relay's (on a shared VM
/// a verify costs up to half again as much CPU time while the other core is
/// busy), at about 1 % of one core.
final class VerifySampler: Sendable {
    private struct State {
        var stopped = false
        var rounds: [Double] = []
    }

    private let state = Mutex(State())

    /// Starts sampling: `count` verifies every `interval` seconds until `finish()`.
    init(probe: VerifyProbe, count: Int = 40, interval: TimeInterval = 0.25) {
        let thread = Thread { [self] in
            while !state.withLock({ $0.stopped }) {
                let micros = probe.cpuMicrosPerVerify(count: count)
                state.withLock { $0.rounds.append(micros) }
                Thread.sleep(forTimeInterval: interval)
            }
        }
        thread.name = "mw-bench-verify-sampler"
        thread.start()
    }

    /// Stops sampling (the thread ends after its current pause) and returns
    /// the per-verify figure of every round so far.
    func finish() -> [Double] {
        state.withLock { s in
            s.stopped = true
            return s.rounds
        }
    }
}
