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
        .library(name: "MailwakeCrypto", targets: ["MailwakeCrypto"]),
        .library(name: "MailwakeProtocol", targets: ["MailwakeProtocol"]),
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
            name: "MailwakeProtocol",
            dependencies: ["MailwakeCrypto"],
            path: "Shared/Protocol",
            swiftSettings: strict
        ),

        // MARK: Services (placeholders until their issues land)
        .executableTarget(
            name: "mailwake-outpost",
            dependencies: ["MailwakeProtocol"],
            path: "Services/Outpost/Sources/mailwake-outpost",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-relay",
            dependencies: ["MailwakeProtocol"],
            path: "Services/Relay/Sources/mailwake-relay",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-accounts",
            dependencies: ["MailwakeProtocol"],
            path: "Services/Accounts/Sources/mailwake-accounts",
            swiftSettings: strict
        ),

        // MARK: Tools
        .executableTarget(
            name: "mailwake-protocol",
            dependencies: ["MailwakeProtocol", "MailwakeCrypto"],
            path: "Tools/ProtocolCLI",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-protocol-bench",
            dependencies: ["MailwakeProtocol", "MailwakeCrypto", "COpenSSLShims"],
            path: "Tools/ProtocolBench",
            swiftSettings: strict
        ),

        // MARK: Tests
        .testTarget(
            name: "CryptoTests",
            dependencies: ["MailwakeCrypto"],
            path: "Tests/CryptoTests",
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ProtocolTests",
            dependencies: ["MailwakeProtocol", "MailwakeCrypto"],
            path: "Tests/ProtocolTests",
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
