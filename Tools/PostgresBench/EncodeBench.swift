import MailwakeBenchKit
import MailwakePostgres

/// The CPU cost of binding array parameters the way the relay's group commit
/// does: one `PostgresArray` per column (ids as text, payloads and hashes as
/// bytea, times as int8, some NULLs), for a batch of rows.
struct EncodeBench {
    var batch: Int

    func run() -> [String: Any] {
        let rows = (0..<batch).map { Row(index: $0) }
        let rounds = 5, repeats = max(1, 200_000 / batch)
        var perRow: [Double] = []
        var parameters = 0
        for _ in 0..<rounds {
            let t0 = BenchSystem.threadCPUSeconds()
            for _ in 0..<repeats { parameters &+= Self.bind(rows).count }
            perRow.append((BenchSystem.threadCPUSeconds() - t0) * 1e9 / Double(repeats * batch))
        }
        perRow.sort()
        return [
            "benchmark": "postgres-encode", "batch_rows": batch, "parameters_bound": parameters,
            "ns_per_row": round1(perRow[rounds / 2]),
            "note": "this thread's CPU time, median of \(rounds) rounds of \(repeats) batches",
        ]
    }

    /// One delivery row, shaped like the relay's.
    struct Row {
        var pairingID, eventID, outpostID, deviceID, kind, status: String
        var activityID: String?
        var payload, hash: [UInt8]
        var iat, deadline, acceptedMS: Int64

        init(index: Int) {
            pairingID = "p" + String(repeating: "a", count: 25)
            eventID = "e\(index)" + String(repeating: "b", count: 20)
            outpostID = "o" + String(repeating: "c", count: 42)
            deviceID = "d" + String(repeating: "d", count: 25)
            kind = "mail"
            status = "sending"
            activityID = index % 4 == 0 ? "activity-\(index)" : nil
            payload = Array(repeating: UInt8(index & 0xFF), count: 620)
            hash = Array(repeating: 7, count: 32)
            iat = 1_764_000_000 + Int64(index)
            deadline = iat + 86_400
            acceptedMS = iat * 1000
        }
    }

    static func bind(_ rows: [Row]) -> PostgresBindings {
        var b = PostgresBindings()
        b.reserveCapacity(parameters: 16, bytes: 16 * 20 + rows.count * (2 * 620 + 32 + 16 * 8 + 200))
        b.append(PostgresArray(rows) { $0.pairingID })
        b.append(PostgresArray(rows) { $0.eventID })
        b.append(PostgresArray(rows) { $0.outpostID })
        b.append(PostgresArray(rows) { $0.deviceID })
        b.append(PostgresArray(rows) { $0.kind })
        b.append(PostgresArray(rows) { $0.activityID })
        b.append(PostgresArray(rows) { _ in String?.none })
        b.append(PostgresArray(rows) { PostgresBytes($0.payload) })
        b.append(PostgresArray(rows) { PostgresBytes($0.hash) })
        b.append(PostgresArray(rows) { $0.iat })
        b.append(PostgresArray(rows) { $0.deadline })
        b.append(PostgresArray(rows) { $0.acceptedMS })
        b.append(PostgresArray(rows) { $0.status })
        b.append(PostgresArray(rows) { $0.acceptedMS + 30_000 })
        b.append(PostgresArray(rows) { _ in "instance-1" as String? })
        b.append(PostgresArray(rows) { PostgresBytes($0.payload) })
        return b
    }
}
