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
        .executable(name: "mailwake-http-bench", targets: ["mailwake-http-bench"]),
        .executable(name: "mailwake-http-client-bench", targets: ["mailwake-http-client-bench"]),
        .executable(name: "mailwake-postgres-bench", targets: ["mailwake-postgres-bench"]),
        .executable(name: "mailwake-accounts-bench", targets: ["mailwake-accounts-bench"]),
        .executable(name: "mailwake-relay-bench", targets: ["mailwake-relay-bench"]),
        .executable(name: "mailwake-heartbeat-bench", targets: ["mailwake-heartbeat-bench"]),
        .executable(name: "mailwake-apns-simulator", targets: ["mailwake-apns-simulator"]),
        .executable(name: "mailwake-device", targets: ["mailwake-device"]),
        .executable(name: "mailwake-body-bench", targets: ["mailwake-body-bench"]),
        .library(name: "MailwakeCrypto", targets: ["MailwakeCrypto"]),
        .library(name: "MailwakeProtocol", targets: ["MailwakeProtocol"]),
        .library(name: "MailwakeCore", targets: ["MailwakeCore"]),
        .library(name: "MailwakeHTTPServer", targets: ["MailwakeHTTPServer"]),
        .library(name: "MailwakeHTTPClient", targets: ["MailwakeHTTPClient"]),
        .library(name: "MailwakePostgres", targets: ["MailwakePostgres"]),
        .library(name: "MailwakeSQLite", targets: ["MailwakeSQLite"]),
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

        .systemLibrary(
            name: "CLibSSL",
            path: "Shared/CBridges/CLibSSL",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibNGHTTP2",
            path: "Shared/CBridges/CLibNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),
        .target(
            name: "CH2ServerShims",
            dependencies: ["CLibNGHTTP2", "CLibSSL"],
            path: "Shared/CBridges/CH2ServerShims",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]
        ),

        .target(
            name: "CSpawnShims",
            path: "Shared/CBridges/CSpawnShims",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]
        ),
        .target(
            name: "CTLSStreamShims",
            dependencies: ["CLibSSL"],
            path: "Shared/CBridges/CTLSStreamShims",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]
        ),
        .target(
            name: "CGMimeShims",
            path: "Shared/CBridges/CGMimeShims",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror", "-I/usr/include/gmime-3.0", "-I/usr/include/glib-2.0",
                                      "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include", "-I/usr/lib/aarch64-linux-gnu/glib-2.0/include"])],
            linkerSettings: [.linkedLibrary("gmime-3.0"), .linkedLibrary("gio-2.0"), .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0")]
        ),
        .target(
            name: "CGumboShims",
            path: "Shared/CBridges/CGumboShims",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])],
            linkerSettings: [.linkedLibrary("gumbo")]
        ),
        .systemLibrary(
            name: "CLibQREncode",
            path: "Shared/CBridges/CLibQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            path: "Shared/CBridges/CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CLibSQLite",
            path: "Shared/CBridges/CLibSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibCurl",
            path: "Shared/CBridges/CLibCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-gnutls-dev"])]
        ),
        .target(
            name: "CCurlShims",
            dependencies: ["CLibCurl"],
            path: "Shared/CBridges/CCurlShims",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]
        ),
        .systemLibrary(
            name: "CLibMicroHTTPD",
            path: "Shared/CBridges/CLibMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .target(
            name: "CMicroHTTPDShims",
            dependencies: ["CLibMicroHTTPD"],
            path: "Shared/CBridges/CMicroHTTPDShims",
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
            dependencies: ["CSpawnShims"],
            path: "Shared/Core",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeHTTPTypes",
            path: "Shared/HTTP/Types",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeHTTPServer",
            dependencies: ["CMicroHTTPDShims", "MailwakeHTTPTypes", "MailwakeCore", "MailwakeProtocol", "MailwakeCrypto"],
            path: "Shared/HTTP/Server",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeHTTPClient",
            dependencies: ["CCurlShims", "MailwakeHTTPTypes", "MailwakeCore", "MailwakeProtocol", "MailwakeCrypto"],
            path: "Shared/HTTP/Client",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakePostgres",
            dependencies: ["CLibPQ", "MailwakeCore", "MailwakeCrypto"],
            path: "Shared/Postgres",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeSQLite",
            dependencies: ["CLibSQLite", "MailwakeCore", "MailwakeCrypto"],
            path: "Shared/SQLite",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeProtocol",
            dependencies: ["MailwakeCrypto"],
            path: "Shared/Protocol",
            swiftSettings: strict
        ),

        // MARK: Services
        .target(
            name: "MailwakeServiceSupport",
            dependencies: ["MailwakeHTTPServer", "MailwakePostgres", "MailwakeProtocol", "MailwakeCore", "MailwakeCrypto"],
            path: "Shared/ServiceSupport",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeAppStore",
            dependencies: ["MailwakeCrypto", "MailwakeProtocol", "COpenSSLShims"],
            path: "Services/Accounts/Sources/AppStore",
            swiftSettings: strict
        ),
        .target(
            name: "AccountsService",
            dependencies: ["MailwakeAppStore", "MailwakeServiceSupport", "MailwakeHTTPServer", "MailwakePostgres", "MailwakeProtocol", "MailwakeCore", "MailwakeCrypto"],
            path: "Services/Accounts/Sources/AccountsService",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeIMAP",
            dependencies: ["CTLSStreamShims"],
            path: "Services/Outpost/Sources/MailwakeIMAP",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeMail",
            dependencies: ["CGumboShims", "CGMimeShims", "MailwakeProtocol"],
            path: "Services/Outpost/Sources/MailwakeMail",
            swiftSettings: strict
        ),
        .target(
            name: "OutpostService",
            dependencies: ["MailwakeMail", "MailwakeIMAP", "MailwakeHTTPServer", "CLibQREncode", "MailwakeSQLite", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"],
            path: "Services/Outpost/Sources/OutpostService",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-outpost",
            dependencies: ["OutpostService", "MailwakeHTTPServer", "MailwakeProtocol", "MailwakeCore"],
            path: "Services/Outpost/Sources/mailwake-outpost",
            swiftSettings: strict
        ),
        .target(
            name: "RelayService",
            dependencies: ["MailwakeServiceSupport", "MailwakeHTTPServer", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakePostgres", "MailwakeProtocol", "MailwakeCore", "MailwakeCrypto"],
            path: "Services/Relay/Sources/RelayService",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-relay",
            dependencies: ["RelayService", "MailwakePostgres", "MailwakeProtocol", "MailwakeCore"],
            path: "Services/Relay/Sources/mailwake-relay",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-accounts",
            dependencies: ["AccountsService", "MailwakeProtocol", "MailwakeCore"],
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
            name: "mailwake-http-bench",
            dependencies: ["MailwakeBenchKit", "MailwakeHTTPServer", "MailwakeHTTPClient", "MailwakeCore"],
            path: "Tools/HTTPBench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-http-client-bench",
            dependencies: ["MailwakeBenchKit", "MailwakeHTTPClient", "MailwakeCore"],
            path: "Tools/HTTPClientBench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-postgres-bench",
            dependencies: ["MailwakePostgres", "MailwakeCore"],
            path: "Tools/PostgresBench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-accounts-bench",
            dependencies: ["MailwakeBenchKit", "AccountsService", "MailwakeHTTPClient", "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"],
            path: "Tools/AccountsBench",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeDeviceKit",
            dependencies: ["MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakeProtocol", "MailwakeCrypto"],
            path: "Tools/DeviceKit",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-device",
            dependencies: ["MailwakeAppStore", "MailwakeDeviceKit", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"],
            path: "Tools/DeviceSimulator",
            swiftSettings: strict
        ),
        .target(
            name: "MailwakeBenchKit",
            dependencies: ["AccountsService", "MailwakeHTTPServer", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"],
            path: "Tools/BenchKit",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-relay-bench",
            dependencies: ["MailwakeBenchKit", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"],
            path: "Tools/RelayBench",
            exclude: ["run"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-heartbeat-bench",
            dependencies: ["MailwakeBenchKit", "RelayService", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"],
            path: "Tools/HeartbeatBench",
            exclude: ["run"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-protocol-bench",
            dependencies: ["MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "COpenSSLShims"],
            path: "Tools/ProtocolBench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-body-bench",
            dependencies: ["MailwakeMail"],
            path: "Tools/BodyBench",
            exclude: ["run"],
            swiftSettings: strict
        ),
        .target(
            name: "APNsSimulatorCore",
            dependencies: ["CH2ServerShims", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"],
            path: "Tools/APNsSimulator/Sources/APNsSimulatorCore",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mailwake-apns-simulator",
            dependencies: ["APNsSimulatorCore", "MailwakeCrypto", "MailwakeCore"],
            path: "Tools/APNsSimulator/Sources/mailwake-apns-simulator",
            swiftSettings: strict
        ),

        // MARK: Tests
        .target(
            name: "TestSupport",
            dependencies: ["MailwakeCore", "MailwakeCrypto", "MailwakeHTTPClient", "MailwakeHTTPTypes"],
            path: "Tests/Support",
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoreTests",
            dependencies: ["MailwakeCore", "TestSupport"],
            path: "Tests/CoreTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["MailwakeHTTPServer", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakeCore", "TestSupport"],
            path: "Tests/HTTPServerTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "HTTPClientTests",
            dependencies: ["MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakeCore", "TestSupport"],
            path: "Tests/HTTPClientTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "PostgresTests",
            dependencies: ["MailwakePostgres", "MailwakeCore", "TestSupport"],
            path: "Tests/PostgresTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AppStoreTests",
            dependencies: ["MailwakeAppStore", "MailwakeCrypto", "TestSupport"],
            path: "Tests/AppStoreTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AccountsTests",
            dependencies: ["AccountsService", "MailwakeAppStore", "MailwakeServiceSupport", "MailwakeHTTPClient", "MailwakeHTTPServer", "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "StackSupport", "TestSupport"],
            path: "Tests/AccountsTests",
            swiftSettings: strict
        ),
        .target(
            name: "StackSupport",
            dependencies: ["AccountsService", "RelayService", "MailwakeAppStore", "MailwakeHTTPClient", "MailwakeHTTPServer", "MailwakeHTTPTypes", "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "TestSupport"],
            path: "Tests/StackSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "RelayTests",
            dependencies: ["RelayService", "StackSupport", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "TestSupport"],
            path: "Tests/RelayTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "OutpostTests",
            dependencies: ["OutpostService", "MailwakeDeviceKit", "MailwakeMail", "MailwakeIMAP", "MailwakeHTTPServer", "MailwakeHTTPTypes", "RelayService", "StackSupport", "MailwakeSQLite", "MailwakeHTTPClient", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "TestSupport"],
            path: "Tests/OutpostTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "MailTests",
            dependencies: ["MailwakeMail", "MailwakeProtocol", "TestSupport"],
            path: "Tests/MailTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "IMAPTests",
            dependencies: ["MailwakeIMAP", "TestSupport"],
            path: "Tests/IMAPTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SQLiteTests",
            dependencies: ["MailwakeSQLite", "MailwakeCore", "TestSupport"],
            path: "Tests/SQLiteTests",
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
            name: "APNsSimulatorTests",
            dependencies: ["APNsSimulatorCore", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "TestSupport"],
            path: "Tests/APNsSimulatorTests",
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
