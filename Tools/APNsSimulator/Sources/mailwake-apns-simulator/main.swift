import APNsSimulatorCore
import Foundation
import MailwakeCore
import MailwakeCrypto

/// `mailwake-apns-simulator`: Apple's APNs provider API over HTTP/2 and TLS
/// on loopback, for relay tests, the relay benchmark and the local stack
/// (docs/apns-simulator.md).
let serveOptions: [OptionSpec] = [
    OptionSpec("listen", value: "HOST:PORT", help: "address to listen on; port 0 picks a free one (default 127.0.0.1:0)"),
    OptionSpec("tls-cert", value: "FILE", required: true, help: "TLS certificate chain (PEM)"),
    OptionSpec("tls-key", value: "FILE", required: true, help: "TLS private key (PEM)"),
    OptionSpec("key-file", value: "FILE", required: true, help: "provider token key: PEM PUBLIC KEY, or the .p8 (PKCS#8) private key"),
    OptionSpec("key-id", value: "KID", required: true, help: "the kid provider tokens must carry"),
    OptionSpec("team-id", value: "TEAM", required: true, help: "the iss provider tokens must carry"),
    OptionSpec("topic", value: "BUNDLE_ID", required: true, help: "the App's bundle id (apns-topic of alert pushes)"),
    OptionSpec("record", value: "FILE", help: "append every request received to FILE as a JSON line"),
    OptionSpec("max-concurrent-streams", value: "N", help: "SETTINGS_MAX_CONCURRENT_STREAMS (default 1000)"),
    OptionSpec("latency-ms", value: "N", help: "hold every /3/device answer back N ms (default 0)"),
    OptionSpec("token-max-age", value: "S", help: "seconds after iat a provider token expires (default 3600)"),
    OptionSpec("token-update-interval", value: "S",
               help: "seconds a team's provider token must be in use before a new one is accepted, else 429 TooManyProviderTokenUpdates " +
                     "(default 1200, as Apple; 0 turns it off)"),
    OptionSpec("keep-deliveries", value: "N", help: "deliveries kept in memory for /_sim/deliveries (default 100000)"),
    OptionSpec("strict", help: "refuse what Apple tolerates: TLS clients without ALPN h2, pushes without apns-push-type"),
    OptionSpec("log-level", value: "LEVEL", help: "trace, debug, info (default), notice, warning, error"),
]

/// `HOST:PORT`, `[V6]:PORT`.
func parseListen(_ value: String) throws(UsageError) -> (String, UInt16) {
    guard let colon = value.lastIndex(of: ":"), let port = UInt16(value[value.index(after: colon)...]) else {
        throw UsageError("--listen must be HOST:PORT, got \(value)")
    }
    var host = String(value[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty else { throw UsageError("--listen must be HOST:PORT, got \(value)") }
    return (host, port)
}

func integer(_ args: ParsedArguments, _ name: String, _ range: ClosedRange<Int64>) throws(UsageError) -> Int64? {
    guard let n = try args.int64(name) else { return nil }
    guard range.contains(n) else { throw UsageError("--\(name) must be in \(range.lowerBound)...\(range.upperBound)") }
    return n
}

func configuration(_ args: ParsedArguments) throws -> SimulatorConfiguration {
    let keyPath = try args.required("key-file")
    guard let pem = try? String(contentsOfFile: keyPath, encoding: .utf8) else { throw UsageError("cannot read --key-file \(keyPath)") }
    let publicKey: P256.Signing.PublicKey
    do {
        publicKey = try ProviderKeyFile.publicKey(pem: pem)
    } catch {
        throw UsageError("--key-file \(keyPath): \(error)")
    }
    var c = SimulatorConfiguration(certificateFile: try args.required("tls-cert"), privateKeyFile: try args.required("tls-key"),
                                   topic: try args.required("topic"), keyID: try args.required("key-id"),
                                   teamID: try args.required("team-id"), publicKey: publicKey)
    (c.host, c.port) = try parseListen(args.value("listen") ?? "127.0.0.1:0")
    c.recordPath = args.value("record")
    if let n = try integer(args, "max-concurrent-streams", 1...100_000) { c.settings.maxConcurrentStreams = Int(n) }
    if let n = try integer(args, "latency-ms", 0...600_000) { c.settings.latencyMS = Int(n) }
    if let n = try integer(args, "token-max-age", 1...86_400 * 365) { c.tokenMaxAge = n }
    if let n = try integer(args, "token-update-interval", 0...86_400) { c.minimumTokenUpdateInterval = n }
    if let n = try integer(args, "keep-deliveries", 1...10_000_000) { c.keepDeliveries = Int(n) }
    c.strict = args.flag("strict")
    return c
}

let tool = CommandLineTool(
    name: "mailwake-apns-simulator",
    summary: "A stand-in for Apple's APNs provider API (HTTP/2 over TLS) with failure injection and a record of what it received.",
    version: MailwakeVersion.current,
    commands: [
        .init(CommandSpec("serve", summary: "Serve until SIGTERM; print {\"event\":\"listening\",\"port\":N} on stdout once bound.",
                          options: serveOptions,
                          discussion: "Control endpoints (no provider token) live under /_sim/ on the same port: see " +
                                      "docs/apns-simulator.md.")) { args in
            var level = LogLevel.info
            if let name = args.value("log-level") {
                guard let parsed = LogLevel(name: name) else { throw UsageError("--log-level: unknown level \(name)") }
                level = parsed
            }
            let logger = Logger(service: "apns-simulator", level: level)
            let simulator = try APNsSimulator(configuration: configuration(args), logger: logger)
            let service = SimulatorService(simulator: simulator, logger: logger) { port in
                StandardStreams.write("{\"event\":\"listening\",\"port\":\(port)}\n")
            }
            return await ServiceGroup(services: [service], logger: logger).runReturningExitCode()
        },
    ])
await tool.main()
