import CLibPQ

/// What one connection's server said in notices (never shown or logged):
/// whether it stopped waiting for the synchronous standby and committed anyway.
///
/// A commit waiting for `synchronous_commit` can be cancelled by a cancel
/// request (task cancellation's `PQcancel`, `pg_cancel_backend`; PostgreSQL
/// 15 ends `statement_timeout` before the commit starts); the server then keeps the
/// transaction committed locally, reports success and sends only the warning
/// "canceling wait for synchronous replication" (SQLSTATE 01000; matched in
/// English, the server's default `lc_messages`). Such a commit may be lost in
/// a failover, so the statement must not count as done.
// Not Sendable: touched only on the connection's worker thread (libpq calls the receiver inside PQexec*/PQgetResult there).
final class ConnectionNotices {
    private(set) var unreplicatedCommit = false

    /// Receives the notices of `conn` (instead of libpq's default, which prints them to stderr).
    func install(on conn: OpaquePointer) {
        PQsetNoticeReceiver(conn, { arg, result in
            guard let arg, let result else { return }
            if ConnectionNotices.isSynchronousReplicationCancel(result) {
                Unmanaged<ConnectionNotices>.fromOpaque(arg).takeUnretainedValue().unreplicatedCommit = true
            }
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Returns whether an unreplicated commit was reported since the last call, and forgets it.
    func takeUnreplicatedCommit() -> Bool {
        defer { unreplicatedCommit = false }
        return unreplicatedCommit
    }

    private static func isSynchronousReplicationCancel(_ result: OpaquePointer) -> Bool {
        func field(_ code: UInt8) -> String? { PQresultErrorField(result, Int32(code)).map { String(cString: $0) } }
        guard field(UInt8(ascii: "C")) == "01000", field(UInt8(ascii: "V")) == "WARNING",
              let message = field(UInt8(ascii: "M")) else { return false }
        return message.contains("wait for synchronous replication")
    }
}
