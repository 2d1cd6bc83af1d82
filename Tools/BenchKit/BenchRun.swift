import Foundation

/// A prepared benchmark: its phases, whose report is printed as JSON, and its cleanup.
public protocol BenchRun: Sendable {
    /// Runs the phases; returns the report.
    func run() async throws -> [String: Any]
    /// Stops and removes what `prepare` started.
    func tearDown() async
}

extension BenchRun {
    /// Runs, tears down (on failure too), and writes the report to stdout as sorted, indented JSON.
    public func report() async throws {
        let report: [String: Any]
        do {
            report = try await run()
        } catch {
            await tearDown()
            throw error
        }
        await tearDown()
        let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}

/// Prepares and reports a bench; a failure in either is printed on one line to stderr (prefixed with `tool`) and
/// exits with status 1, instead of Swift's fatal "error raised at top level" and a crash report.
public func runBench<Bench: BenchRun>(_ tool: String, _ prepare: () async throws -> Bench) async {
    do {
        try await prepare().report()
    } catch {
        FileHandle.standardError.write(Data("\(tool): error: \(error)\n".utf8))
        exit(1)
    }
}
