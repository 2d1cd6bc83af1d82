// swift-tools-version:6.0
// Mailwake: end-to-end encrypted iPhone notifications for any IMAP mailbox.
// One package: Shared modules, three services, tools and tests (DESIGN.md §2).
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// A C library from Debian, found through pkg-config (`Shared/CBridges/<name>`: a module map, nothing else).
func debianLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "Shared/CBridges/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// A C shim with plain signatures over a C library (`Shared/CBridges/<name>`); C warnings are errors.
func shim(_ name: String, _ dependencies: [Target.Dependency] = [], cFlags: [String] = [], links: [String] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "Shared/CBridges/\(name)",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra", "-Werror"] + cFlags)], linkerSettings: links.map { .linkedLibrary($0) })
}

/// A Swift library module, in the strict settings.
func module(_ name: String, _ path: String, _ dependencies: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: dependencies, path: path, swiftSettings: strict)
}

/// A command-line program, in the strict settings.
func program(_ name: String, _ path: String, _ dependencies: [Target.Dependency], exclude: [String] = []) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: path, exclude: exclude, swiftSettings: strict)
}

/// A test target (`Tests/<name>`), in the strict settings.
func tests(_ name: String, _ dependencies: [Target.Dependency], exclude: [String] = []) -> Target {
    .testTarget(name: name, dependencies: dependencies, path: "Tests/\(name)", exclude: exclude, swiftSettings: strict)
}

/// Every executable is a product of its own name; so are the shared libraries below.
let programs = [
    "mailwake-outpost", "mailwake-relay", "mailwake-accounts", "mailwake-protocol", "mailwake-protocol-bench", "mailwake-vectors",
    "mailwake-http-bench", "mailwake-http-client-bench", "mailwake-postgres-bench", "mailwake-accounts-bench", "mailwake-relay-bench",
    "mailwake-heartbeat-bench", "mailwake-apns-simulator", "mailwake-device", "mailwake-body-bench",
]
let libraries = [
    "MailwakeCrypto", "MailwakeProtocol", "MailwakeCore", "MailwakeHTTPServer", "MailwakeHTTPClient", "MailwakePostgres", "MailwakeSQLite",
]

let package = Package(
    name: "Mailwake",
    platforms: [.macOS(.v14)],
    products: programs.map { Product.executable(name: $0, targets: [$0]) } + libraries.map { Product.library(name: $0, targets: [$0]) },
    targets: [
        // MARK: C bridges (the only code that touches C APIs)
        debianLibrary("CLibCrypto", pkgConfig: "libcrypto", apt: "libssl-dev"),
        // -O2 in debug builds too: the verify with a table is this target's own arithmetic (mw_p256_table.c).
        shim("COpenSSLShims", ["CLibCrypto"], cFlags: ["-O2"]),
        debianLibrary("CLibSSL", pkgConfig: "libssl", apt: "libssl-dev"),
        debianLibrary("CLibNGHTTP2", pkgConfig: "libnghttp2", apt: "libnghttp2-dev"),
        shim("CH2TLSShims", ["CLibNGHTTP2", "CLibSSL"]),
        shim("CH2ServerShims", ["CH2TLSShims", "CLibNGHTTP2", "CLibSSL"]),
        shim("CH2ClientShims", ["CH2TLSShims", "CLibNGHTTP2", "CLibSSL"]),
        shim("CSpawnShims"),
        shim("CTLSStreamShims", ["CLibSSL"]),
        shim("CH1LoadShims", ["CLibSSL"]),
        shim("CGMimeShims",
             cFlags: ["-I/usr/include/gmime-3.0", "-I/usr/include/glib-2.0", "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include",
                      "-I/usr/lib/aarch64-linux-gnu/glib-2.0/include"],
             links: ["gmime-3.0", "gio-2.0", "gobject-2.0", "glib-2.0"]),
        shim("CGumboShims", links: ["gumbo"]),
        debianLibrary("CLibQREncode", pkgConfig: "libqrencode", apt: "libqrencode-dev"),
        shim("CQREncodeShims", ["CLibQREncode"]),
        debianLibrary("CLibPQ", pkgConfig: "libpq", apt: "libpq-dev"),
        debianLibrary("CLibSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
        debianLibrary("CLibCurl", pkgConfig: "libcurl", apt: "libcurl4-gnutls-dev"),
        shim("CCurlShims", ["CLibCurl"]),
        debianLibrary("CLibMicroHTTPD", pkgConfig: "libmicrohttpd", apt: "libmicrohttpd-dev"),
        shim("CHTTPServerShims", ["CLibMicroHTTPD", "CLibSSL"]),

        // MARK: Shared modules
        module("MailwakeErrors", "Shared/Errors", []),
        module("MailwakeCrypto", "Shared/Crypto", ["COpenSSLShims", "MailwakeErrors"]),
        module("MailwakeCore", "Shared/Core", ["CSpawnShims"]),
        module("MailwakeHTTPTypes", "Shared/HTTP/Types", []),
        module("MailwakeHTTPServer", "Shared/HTTP/Server", ["CHTTPServerShims", "MailwakeHTTPTypes", "MailwakeCore", "MailwakeProtocol",
            "MailwakeCrypto"]),
        module("MailwakeHTTPClient", "Shared/HTTP/Client", ["CCurlShims", "CH2ClientShims", "MailwakeErrors", "MailwakeHTTPTypes", "MailwakeCore", "MailwakeProtocol",
            "MailwakeCrypto"]),
        module("MailwakeHTTPTesting", "Shared/HTTP/Testing", ["MailwakeHTTPServer", "MailwakeHTTPClient", "MailwakeHTTPTypes",
            "MailwakeCore"]),
        module("MailwakePostgres", "Shared/Postgres", ["CLibPQ", "MailwakeErrors", "MailwakeCore", "MailwakeCrypto"]),
        module("MailwakeSQLite", "Shared/SQLite", ["CLibSQLite", "MailwakeErrors", "MailwakeCore", "MailwakeCrypto"]),
        module("MailwakeProtocol", "Shared/Protocol", ["MailwakeCrypto", "MailwakeErrors"]),
        module("MailwakeQRCode", "Shared/QRCode", ["CQREncodeShims"]),

        // MARK: Services
        module("MailwakeServiceSupport", "Shared/ServiceSupport", ["MailwakeHTTPServer", "MailwakePostgres", "MailwakeProtocol",
            "MailwakeCore", "MailwakeCrypto"]),
        module("MailwakeAppStore", "Services/Accounts/Sources/AppStore", ["MailwakeErrors", "MailwakeCrypto", "MailwakeProtocol"]),
        module("AccountsService", "Services/Accounts/Sources/AccountsService", ["MailwakeAppStore", "MailwakeServiceSupport",
            "MailwakeHTTPServer", "MailwakePostgres", "MailwakeProtocol", "MailwakeCore", "MailwakeCrypto"]),
        module("MailwakeIMAP", "Services/Outpost/Sources/MailwakeIMAP", ["CTLSStreamShims", "MailwakeErrors"]),
        module("MailwakeMail", "Services/Outpost/Sources/MailwakeMail", ["CGumboShims", "CGMimeShims", "MailwakeErrors", "MailwakeProtocol"]),
        module("OutpostService", "Services/Outpost/Sources/OutpostService", ["MailwakeErrors", "MailwakeMail", "MailwakeIMAP",
            "MailwakeHTTPServer", "MailwakeQRCode", "MailwakeSQLite", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakeProtocol",
            "MailwakeCrypto", "MailwakeCore"]),
        program("mailwake-outpost", "Services/Outpost/Sources/mailwake-outpost", ["OutpostService", "MailwakeHTTPServer",
            "MailwakeQRCode", "MailwakeProtocol", "MailwakeCore"]),
        module("RelayService", "Services/Relay/Sources/RelayService", ["MailwakeServiceSupport", "MailwakeHTTPServer",
            "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakePostgres", "MailwakeProtocol", "MailwakeCore", "MailwakeCrypto"]),
        program("mailwake-relay", "Services/Relay/Sources/mailwake-relay", ["RelayService", "MailwakePostgres", "MailwakeProtocol",
            "MailwakeCore"]),
        program("mailwake-accounts", "Services/Accounts/Sources/mailwake-accounts",
                ["AccountsService", "MailwakeProtocol", "MailwakeCore"]),

        // MARK: Tools
        program("mailwake-protocol", "Tools/ProtocolCLI", ["MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"]),
        program("mailwake-vectors", "Tools/VectorGen", ["MailwakeProtocol", "MailwakeCrypto"]),
        program("mailwake-http-bench", "Tools/HTTPBench", ["MailwakeBenchKit", "MailwakeHTTPServer", "MailwakeHTTPClient", "MailwakeCore"]),
        program("mailwake-http-client-bench", "Tools/HTTPClientBench", ["MailwakeBenchKit", "MailwakeHTTPClient", "MailwakeCore"]),
        program("mailwake-postgres-bench", "Tools/PostgresBench", ["MailwakePostgres", "MailwakeCore", "MailwakeBenchKit"]),
        program("mailwake-accounts-bench", "Tools/AccountsBench", ["MailwakeBenchKit", "AccountsService", "MailwakeHTTPClient",
            "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"]),
        module("MailwakeDeviceKit", "Tools/DeviceKit", ["MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakeProtocol", "MailwakeCrypto",
            "MailwakeCore"]),
        program("mailwake-device", "Tools/DeviceSimulator", ["MailwakeAppStore", "MailwakeDeviceKit", "MailwakeHTTPClient",
            "MailwakeHTTPTypes", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"]),
        module("MailwakeBenchKit", "Tools/BenchKit", ["CH1LoadShims", "AccountsService", "MailwakeHTTPServer", "MailwakeHTTPClient",
            "MailwakeHTTPTypes", "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"]),
        program("mailwake-relay-bench", "Tools/RelayBench", ["MailwakeBenchKit", "MailwakeHTTPClient", "MailwakeHTTPTypes",
            "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"], exclude: ["run"]),
        program("mailwake-heartbeat-bench", "Tools/HeartbeatBench", ["MailwakeBenchKit", "RelayService", "MailwakeHTTPClient",
            "MailwakeHTTPTypes", "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore"], exclude: ["run"]),
        program("mailwake-protocol-bench", "Tools/ProtocolBench", ["MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "COpenSSLShims"]),
        program("mailwake-body-bench", "Tools/BodyBench", ["MailwakeMail"], exclude: ["run"]),
        module("APNsSimulatorCore", "Tools/APNsSimulator/Sources/APNsSimulatorCore", ["CH2ServerShims", "MailwakeProtocol",
            "MailwakeCrypto", "MailwakeCore"]),
        program("mailwake-apns-simulator", "Tools/APNsSimulator/Sources/mailwake-apns-simulator", ["APNsSimulatorCore", "MailwakeCrypto",
            "MailwakeCore"]),

        // MARK: Tests
        module("TestSupport", "Tests/Support", ["MailwakeCore", "MailwakeCrypto", "MailwakeHTTPClient", "MailwakeHTTPTypes"]),
        tests("CoreTests", ["MailwakeCore", "TestSupport"]),
        tests("HTTPServerTests", ["CHTTPServerShims", "MailwakeBenchKit", "MailwakeHTTPServer", "MailwakeHTTPTesting", "MailwakeHTTPClient",
            "MailwakeHTTPTypes", "MailwakeCore", "TestSupport"]),
        tests("BenchKitTests", ["MailwakeBenchKit"]),
        tests("HTTPClientTests", ["MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakeCore", "TestSupport"]),
        tests("PostgresTests", ["MailwakePostgres", "MailwakeCore", "TestSupport"]),
        tests("AppStoreTests", ["MailwakeAppStore", "MailwakeCrypto", "MailwakeProtocol", "TestSupport"]),
        tests("AccountsTests", ["AccountsService", "MailwakeAppStore", "MailwakeServiceSupport", "MailwakeHTTPClient", "MailwakeHTTPTesting",
            "MailwakeHTTPServer", "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "StackSupport", "TestSupport"]),
        module("StackSupport", "Tests/StackSupport", ["AccountsService", "RelayService", "MailwakeAppStore", "MailwakeHTTPClient",
            "MailwakeHTTPTesting",
            "MailwakeHTTPServer", "MailwakeHTTPTypes", "MailwakePostgres", "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore",
            "TestSupport"]),
        tests("RelayTests", ["RelayService", "StackSupport", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakePostgres",
            "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "TestSupport"]),
        tests("OutpostTests", ["OutpostService", "MailwakeDeviceKit", "MailwakeMail", "MailwakeIMAP", "MailwakeHTTPServer",
            "MailwakeQRCode", "MailwakeHTTPTypes", "RelayService", "StackSupport", "MailwakeSQLite", "MailwakeHTTPClient",
            "MailwakeProtocol", "MailwakeCrypto", "MailwakeCore", "TestSupport"]),
        tests("MailTests", ["MailwakeMail", "MailwakeProtocol", "TestSupport"]),
        tests("IMAPTests", ["MailwakeIMAP", "TestSupport"]),
        tests("QRCodeTests", ["MailwakeQRCode"]),
        tests("SQLiteTests", ["MailwakeSQLite", "MailwakeCore", "TestSupport"]),
        tests("CryptoTests", ["MailwakeCrypto", "COpenSSLShims", "TestSupport"], exclude: ["Fixtures"]),
        tests("APNsSimulatorTests", ["APNsSimulatorCore", "MailwakeHTTPClient", "MailwakeHTTPTypes", "MailwakeProtocol", "MailwakeCrypto",
            "MailwakeCore", "TestSupport"]),
        tests("ProtocolTests", ["MailwakeProtocol", "MailwakeErrors", "MailwakeCrypto", "MailwakeCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
