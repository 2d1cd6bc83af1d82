#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall clock (`CLOCK_REALTIME`) in Unix time, since 1970-01-01 00:00 UTC: the one place Mailwake reads it.
///
/// Types that depend on the time take a clock parameter of the same shape (`@Sendable () -> Int64`) whose default is
/// `WallClock.seconds` or `WallClock.milliseconds`, so a test can inject a clock of its own. Whole units are rounded
/// down, as `Int64(Date().timeIntervalSince1970)` did.
public enum WallClock {
    /// Whole seconds since 1970: signed-request timestamps, expiries, `created_at` columns.
    public static let seconds: @Sendable () -> Int64 = { Int64(now().tv_sec) }

    /// Whole milliseconds since 1970: delivery timestamps, queue deadlines.
    public static let milliseconds: @Sendable () -> Int64 = {
        let t = now()
        return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
    }

    /// Seconds since 1970 with their fraction: log record timestamps, metrics of instants.
    public static let fractionalSeconds: @Sendable () -> Double = {
        let t = now()
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    private static func now() -> timespec {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return t
    }
}
