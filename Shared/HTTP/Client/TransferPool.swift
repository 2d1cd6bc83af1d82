import CCurlShims
import Synchronization

/// Finished transfers kept for the next requests of one client.
///
/// A new easy handle costs libcurl an allocation of its handle and its
/// 16 KiB receive buffer, and freeing it costs as much again: per APNs push
/// that was a measurable share of the owner thread (docs/http-client.md). A
/// transfer given back here keeps both; the next request resets it
/// (`curl_easy_reset`, on the calling task, not the owner thread) and sets
/// its own options as on a new one.
final class TransferPool: Sendable {
    /// An idle transfer: no easy handle of it is in a multi handle, nothing else holds it.
    // `@unchecked Sendable` is safe because a pointer is only ever in the
    // pool or with the one `CurlTransfer` that took it, never both, and the
    // pool's lock orders the hand-over.
    private struct Idle: @unchecked Sendable {
        let raw: OpaquePointer
    }

    /// Transfers kept at most (each is about 25 KiB).
    let capacity: Int
    private let idle = Mutex<[Idle]>([])

    init(capacity: Int) { self.capacity = max(0, capacity) }

    deinit {
        for transfer in idle.withLock({ $0 }) { mw_transfer_free(transfer.raw) }
    }

    /// A transfer ready for request `id`: a kept one reset, or a new one; nil when out of memory.
    func take(id: UInt64, maxBody: Int, maxHeaderBytes: Int) -> OpaquePointer? {
        if let kept = idle.withLock({ $0.popLast() }) {
            if mw_transfer_recycle(kept.raw, id, maxBody, maxHeaderBytes) == 0 { return kept.raw }
            mw_transfer_free(kept.raw)
        }
        return mw_transfer_new(id, maxBody, maxHeaderBytes)
    }

    /// Keeps a finished transfer (its easy handle out of the multi handle), or frees it when the pool is full.
    func giveBack(_ raw: OpaquePointer) {
        let kept = idle.withLock { idle in
            guard idle.count < capacity else { return false }
            idle.append(Idle(raw: raw))
            return true
        }
        if !kept { mw_transfer_free(raw) }
    }
}
