import Foundation

/// The watch coverage lines `mailwake-outpost status` prints under a folder:
/// when it was last confirmed watched, and the recent periods it was not.
public enum WatchCoverageReport {
    /// Gaps listed per folder (the store keeps more).
    public static let shownGaps = 5

    /// Indented lines for `state` (nil: never watched) and its `gaps` (newest first) at `now` (Unix seconds).
    public static func lines(state: FolderState?, gaps: [FolderWatchGap], now: Int64, time: (Int64) -> String) -> [String] {
        var out: [String] = []
        if let at = state?.lastConfirmedAt {
            out.append("confirmed watched: \(time(at)) (\(duration(max(0, now - at))) ago)")
        } else {
            out.append("confirmed watched: never")
        }
        if let open = gaps.first(where: { $0.endedAt == nil }) {
            out.append("NOT WATCHED since \(time(open.startedAt)) (\(duration(open.seconds(now: now))), \(open.reason))")
        }
        let closed = gaps.filter { $0.endedAt != nil }
        for gap in closed.prefix(shownGaps) {
            out.append("not watched \(time(gap.startedAt)) to \(time(gap.endedAt!)) (\(duration(gap.seconds(now: now))), \(gap.reason))")
        }
        if closed.count > shownGaps { out.append("… \(closed.count - shownGaps) earlier gaps kept") }
        return out
    }

    /// `42 s`, `3 min 5 s`, `2 h 10 min`, `3 d 4 h`.
    static func duration(_ seconds: Int64) -> String {
        switch seconds {
        case ..<60: "\(seconds) s"
        case ..<3600: "\(seconds / 60) min \(seconds % 60) s"
        case ..<86400: "\(seconds / 3600) h \(seconds % 3600 / 60) min"
        default: "\(seconds / 86400) d \(seconds % 86400 / 3600) h"
        }
    }
}
