import MailwakeCore

extension RelayApp {
    /// Reads the figures of the `/admin` page (a few indexed queries).
    func statusSnapshot() async throws -> StatusSnapshot {
        let nowMS = clockMS()
        let windows = try await deliveryStatsStore.finishedWindows(nowMS: nowMS)
        let queue = try await deliveryStatsStore.queueFigures(nowMS: nowMS)
        let reasons = try await deliveryStatsStore.failuresByReason(sinceMS: nowMS - 3_600_000)
        let recent = try await deliveryStatsStore.recentFailures(sinceMS: nowMS - 86_400_000)
        let active = try await pairingStore.activeCount()
        return StatusSnapshot(
            instance: configuration.instanceName, version: MailwakeVersion.current, generatedAt: nowMS / 1000, windows: windows,
            queued: queue.queued, sending: queue.sending, dueNow: queue.dueNow,
            oldestAgeSeconds: queue.firstDueMS.map { Double(max(0, nowMS - $0)) / 1000 } ?? 0,
            failuresByReason: reasons, recentFailures: recent,
            acceptedHere: relayMetrics.accepted.current, apnsWindowLimit: apns.window.limit, apnsInFlight: apns.window.inFlight,
            activePairings: active)
    }
}
