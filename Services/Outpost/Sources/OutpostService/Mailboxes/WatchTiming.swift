/// How watchers pace themselves. Defaults suit real providers.
public struct WatchTiming: Sendable, Equatable {
    /// IDLE is ended and re-issued after this long (servers and NATs drop
    /// quiet connections well before RFC 2177's 29 minutes). Default 4 min.
    public var idleRestart: Duration = .seconds(240)
    /// Checks per connection without IDLE (or beyond the connection limit). Default 60 s.
    public var pollInterval: Duration = .seconds(60)
    /// First reconnect delay after an error; doubles up to `maxBackoff`, with jitter. Default 2 s.
    public var backoff: Duration = .seconds(2)
    /// Default 5 min.
    public var maxBackoff: Duration = .seconds(300)
    /// First delay after the server refused the credentials; doubles up to one hour. Default 5 min.
    public var authenticationBackoff: Duration = .seconds(300)
    /// Messages fetched per FETCH command. Default 25.
    public var fetchBatch: Int = 25
    /// Longest silence accepted from the server while it owes an answer (the
    /// greeting, a command's tagged reply, DONE's): past it the connection is
    /// taken for dead, closed and replaced. Default 60 s.
    public var responseTimeout: Duration = .seconds(60)
    /// After a UIDVALIDITY change, mail whose INTERNALDATE is up to this much
    /// before the folder was last in sync is notified too (the server's clock
    /// may be behind the outpost's; repeats are caught by Message-ID). Default 5 min.
    public var resyncClockAllowance: Duration = .seconds(300)

    /// RFC 2177: a client must re-issue IDLE at least every 29 minutes.
    public static let idleLimit: Duration = .seconds(29 * 60)

    public init() {}

    /// How long one IDLE lasts: `idleRestart`, at least 1 s and at most 28
    /// minutes (a minute under RFC 2177's 29, for slow answers and clocks).
    public var idleWait: Duration {
        min(max(idleRestart, .seconds(1)), Self.idleLimit - .seconds(60))
    }

    /// The delay before reconnect attempt `failures` (1, 2, …), with ±25 % jitter.
    func delay(afterFailures failures: Int, authentication: Bool) -> Duration {
        let base = authentication ? authenticationBackoff : backoff
        let cap = authentication ? Duration.seconds(3600) : maxBackoff
        var d = base
        for _ in 1..<max(1, min(failures, 20)) where d < cap { d *= 2 }
        d = min(d, cap)
        return d * Double.random(in: 0.75...1.25)
    }
}
