import Foundation

/// Reference figures from `openssl speed` (machine-readable mode), measured in
/// the same run so the ratios compare like with like.
struct OpenSSLSpeed {
    var ecdsaSignPerSecond: Double?
    var ecdsaVerifyPerSecond: Double?
    var ecdhPerSecond: Double?

    /// Runs `openssl speed -mr ecdsap256 ecdhp256` for `seconds` per test; nil values when unavailable.
    static func measure(seconds: Int) -> OpenSSLSpeed {
        var speed = OpenSSLSpeed()
        guard let output = run(["speed", "-seconds", String(seconds), "-mr", "ecdsap256", "ecdhp256"]) else { return speed }
        for line in output.split(separator: "\n") {
            let f = line.split(separator: ":")
            if f.first == "+F4", f.count >= 5 {
                speed.ecdsaSignPerSecond = Double(f[3])
                speed.ecdsaVerifyPerSecond = Double(f[4])
            } else if f.first == "+F5", f.count >= 4 {
                speed.ecdhPerSecond = Double(f[3])
            }
        }
        return speed
    }

    private static func run(_ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
