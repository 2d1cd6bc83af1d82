// swift-tools-version:6.0
// Mailwake: end-to-end encrypted iPhone notifications for any IMAP mailbox.
// One package: Shared modules, three services, tools and tests (DESIGN.md §2).
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Mailwake",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "mailwake-outpost", targets: ["mailwake-outpost"]),
        .executable(name: "mailwake-relay", targets: ["mailwake-relay"]),
        .executable(name: "mailwake-accounts", targets: ["mailwake-accounts"]),
        .executable(name: "mailwake-protocol", targets: ["mailwake-protocol"]),
        .executable(name: "mailwake-protocol-bench", targets: ["mailwake-protocol-bench"]),
        .executable(name: "mailwake-vectors", targets: ["mailwake-vectors"]),
        .library(name: "MailwakeCrypto", targets: ["MailwakeCrypto"]),
        .library(name: "MailwakeProtocol", targets: ["MailwakeProtocol"]),
        .library(name: "MailwakeCore", targets: ["MailwakeCore"]),
    ],
    targets: [
        // MARK: C bridges (the only code that touches C APIs)
        .systemLibrary(
            name: "CLibCrypto",
            path: "Shared/CBridges/CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "COpenSSLShims",
            dependencies: ["CLibCrypto"],
            path: "Shared/CBridges/COpenSSLShims",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]
        ),

        // MARK: Shared modules
        .target(
            name: "MailwakeCrypto",
            dependencies: ["COpenSSLShims"],
            path: "Shared/Crypto",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeCore",
            path: "Shared/Core",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeProtocol",
            dependencies: ["MailwakeCrypto"],
            path: "Shared/Protocol",
            swiftSettings: strict
        ),

        // MARK: Services (placeholders until their issues land)
        .executableTarget(
            name: "mailwake-outpost",
            dependencies: ["MailwakeProtocol", "MailwakeCore"],
            path: "Services/Outpost/Sources/mailwake-outpost",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-relay",
            dependencies: ["MailwakeProtocol", "MailwakeCore"],
            path: "Services/Relay/Sources/mailwake-relay",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-accounts",
            dependencies: ["MailwakeProtocol", "MailwakeCore"],
            path: "Services/Accounts/Sources/mailwake-accounts",
            swiftSettings: strict
        ),

        // MARK: Tools
        .executableTarget(
            name: "mailwake-protocol",
            dependencies: ["MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"],
            path: "Tools/ProtocolCLI",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-vectors",
            dependencies: ["MailwakeProtocol", "MailwakeCrypto"],
            path: "Tools/VectorGen",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-protocol-bench",
            dependencies: ["MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "COpenSSLShims"],
            path: "Tools/ProtocolBench",
            swiftSettings: strict
        ),

        // MARK: Tests
        .target(
            name: "TestSupport",
            path: "Tests/Support",
            swiftSettings: strict
        ),
        .testTarget(
            name: "CryptoTests",
            dependencies: ["MailwakeCrypto", "TestSupport"],
            path: "Tests/CryptoTests",
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ProtocolTests",
            dependencies: ["MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "TestSupport"],
            path: "Tests/ProtocolTests",
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
