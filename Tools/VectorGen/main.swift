import Foundation

/// `mailwake-vectors [PATH]`: writes the protocol test vectors (Tests/Vectors/README.md).
let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--help" {
    print("usage: mailwake-vectors [PATH]\n\nWrites the protocol v1 test vectors as JSON to PATH (default stdout).\nEverything but " +
          "ECDSA signatures is deterministic.")
    exit(0)
}
let json = VectorBuilder().build()
let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
if let path = arguments.first {
    try (data + Data("\n".utf8)).write(to: URL(fileURLWithPath: path))
} else {
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}
