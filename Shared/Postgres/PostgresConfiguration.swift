extension PostgresClient {
    /// Where and how to connect, and how the pool behaves.
    ///
    /// Build it field by field or from a URL
    /// `postgres://user:password@host:port/database?sslmode=require`.
    /// Its `description` never shows the password.
    public struct Configuration: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        /// libpq's `sslmode`.
        public enum SSLMode: String, Sendable, CaseIterable {
            case disable, allow, prefer, require
            case verifyCA = "verify-ca"
            case verifyFull = "verify-full"
        }

        /// Host name or IP address for TCP. Ignored when `unixSocketDirectory` is set.
        public var host: String = "127.0.0.1"
        /// TCP port, also the number in the Unix socket's file name.
        public var port: Int = 5432
        /// Directory holding the server's Unix socket (`.s.PGSQL.<port>`); used instead of `host` when set.
        public var unixSocketDirectory: String?
        public var user: String = "postgres"
        public var password: String?
        public var database: String?
        public var sslMode: SSLMode = .prefer
        /// CA bundle for `verify-ca` / `verify-full`.
        public var sslRootCertificatePath: String?
        /// Most connections the pool opens (8 by default).
        public var poolSize: Int = 8
        /// Limit for establishing one connection (libpq counts whole seconds, at least 2).
        public var connectTimeout: Duration = .seconds(10)
        /// Server-side `statement_timeout` for every statement, none by default.
        public var statementTimeout: Duration?
        /// How long a caller waits for a free pooled connection before `.timeout`.
        public var checkoutTimeout: Duration = .seconds(10)
        /// `application_name` shown in `pg_stat_activity`.
        public var applicationName: String = "mailwake"
        /// Server settings for this pool's sessions (`plan_cache_mode`,
        /// `enable_seqscan`, …), sent at connection start. Names are
        /// lower-case identifiers and values plain words or numbers
        /// (checked when connecting); empty by default.
        public var sessionSettings: [String: String] = [:]
        /// Prepared statements kept per connection (least recently used are deallocated); 0 disables preparing.
        public var statementCacheCapacity: Int = 128
        /// First delay before reconnecting after a failed connection attempt; doubles per failure.
        public var reconnectBackoffInitial: Duration = .milliseconds(50)
        /// Longest delay between reconnection attempts.
        public var reconnectBackoffMax: Duration = .seconds(2)

        public init() {}

        /// Fields from a `postgres://` or `postgresql://` URL.
        ///
        /// Understood query items: `sslmode`, `sslrootcert`, `application_name`,
        /// `connect_timeout` (seconds), `statement_timeout` (milliseconds),
        /// `pool_size`, `host` (a Unix socket directory, as libpq allows). A host
        /// that starts with `/` (percent-encoded as `%2F`) is a socket directory.
        public init(url: String) throws {
            var rest = Substring(url)
            guard let schemeEnd = rest.firstRange(of: "://") else { throw Self.invalid("missing scheme (postgres://)") }
            let scheme = rest[..<schemeEnd.lowerBound].lowercased()
            guard scheme == "postgres" || scheme == "postgresql" else { throw Self.invalid("scheme must be postgres or postgresql") }
            rest = rest[schemeEnd.upperBound...]

            var queryPart: Substring = ""
            if let q = rest.firstIndex(of: "?") {
                queryPart = rest[rest.index(after: q)...]
                rest = rest[..<q]
            }
            var pathPart: Substring = ""
            if let slash = rest.firstIndex(of: "/") {
                pathPart = rest[rest.index(after: slash)...]
                rest = rest[..<slash]
            }
            // Authority: [userinfo@]host[:port]; the last '@' ends userinfo.
            if let at = rest.lastIndex(of: "@") {
                let userInfo = rest[..<at]
                rest = rest[rest.index(after: at)...]
                if let colon = userInfo.firstIndex(of: ":") {
                    user = try Self.percentDecoded(userInfo[..<colon], key: "user")
                    password = try Self.percentDecoded(userInfo[userInfo.index(after: colon)...], key: "password")
                } else {
                    user = try Self.percentDecoded(userInfo, key: "user")
                }
            }
            var hostPart = rest
            if hostPart.hasPrefix("[") {
                guard let close = hostPart.firstIndex(of: "]") else { throw Self.invalid("unterminated IPv6 address") }
                host = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
                hostPart = hostPart[hostPart.index(after: close)...]
                if hostPart.hasPrefix(":") { try setPort(hostPart.dropFirst()) } else if !hostPart.isEmpty { throw Self.invalid("unexpected text after IPv6 address") }
            } else {
                if let colon = hostPart.lastIndex(of: ":") {
                    try setPort(hostPart[hostPart.index(after: colon)...])
                    hostPart = hostPart[..<colon]
                }
                let decodedHost = try Self.percentDecoded(hostPart, key: "host")
                if decodedHost.hasPrefix("/") { unixSocketDirectory = decodedHost } else if !decodedHost.isEmpty { host = decodedHost }
            }
            if !pathPart.isEmpty { database = try Self.percentDecoded(pathPart, key: "database") }

            for item in queryPart.split(separator: "&") where !item.isEmpty {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = try Self.percentDecoded(pair[0], key: "query")
                let value = pair.count > 1 ? try Self.percentDecoded(pair[1], key: key) : ""
                switch key {
                case "sslmode":
                    guard let mode = SSLMode(rawValue: value) else { throw Self.invalid("sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))") }
                    sslMode = mode
                case "sslrootcert": sslRootCertificatePath = value
                case "application_name": applicationName = value
                case "connect_timeout":
                    guard let s = Int(value), s > 0 else { throw Self.invalid("connect_timeout must be a positive number of seconds") }
                    connectTimeout = .seconds(s)
                case "statement_timeout":
                    guard let ms = Int(value), ms >= 0 else { throw Self.invalid("statement_timeout must be milliseconds") }
                    statementTimeout = ms == 0 ? nil : .milliseconds(ms)
                case "pool_size":
                    guard let n = Int(value), n > 0 else { throw Self.invalid("pool_size must be a positive integer") }
                    poolSize = n
                case "host":
                    if value.hasPrefix("/") { unixSocketDirectory = value } else { host = value }
                case "user": user = value
                case "password": password = value
                case "dbname": database = value
                case "port": try setPort(Substring(value))
                default: throw Self.invalid("unknown parameter \(key)")
                }
            }
        }

        private mutating func setPort(_ text: Substring) throws {
            guard let p = Int(text), (1...65535).contains(p) else { throw Self.invalid("port must be 1-65535") }
            port = p
        }

        static func invalid(_ why: String) -> PostgresError {
            PostgresError(.configuration, "invalid PostgreSQL URL: \(why)")
        }

        static func percentDecoded(_ s: Substring, key: String) throws -> String {
            var bytes: [UInt8] = []
            var it = Array(s.utf8)[...]
            while let b = it.popFirst() {
                if b == UInt8(ascii: "%") {
                    guard it.count >= 2, let hi = hexValue(it[it.startIndex]), let lo = hexValue(it[it.startIndex + 1]) else {
                        throw invalid("bad percent-encoding in \(key)")
                    }
                    bytes.append(hi << 4 | lo)
                    it = it.dropFirst(2)
                } else {
                    bytes.append(b)
                }
            }
            guard let text = String(validating: bytes, as: UTF8.self) else { throw invalid("\(key) is not UTF-8") }
            return text
        }

        private static func hexValue(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x41...0x46: c - 0x41 + 10
            case 0x61...0x66: c - 0x61 + 10
            default: nil
            }
        }

        /// The URL with the password replaced by `***`.
        public var description: String {
            var out = "postgres://" + user
            if password != nil { out += ":***" }
            out += "@"
            if let dir = unixSocketDirectory { out += "[unix:\(dir)]:\(port)" } else { out += (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
            out += "/" + (database ?? "") + "?sslmode=" + sslMode.rawValue + "&application_name=" + applicationName + "&pool_size=\(poolSize)"
            return out
        }

        public var debugDescription: String { description }

        /// libpq keyword/value pairs (for `PQconnectdbParams`).
        func libpqParameters() -> [(String, String)] {
            var p: [(String, String)] = []
            p.append(("host", unixSocketDirectory ?? host))
            p.append(("port", String(port)))
            p.append(("user", user))
            if let password { p.append(("password", password)) }
            if let database { p.append(("dbname", database)) }
            p.append(("sslmode", sslMode.rawValue))
            if let sslRootCertificatePath { p.append(("sslrootcert", sslRootCertificatePath)) }
            let seconds = connectTimeout.components.seconds + (connectTimeout.components.attoseconds > 0 ? 1 : 0)
            p.append(("connect_timeout", String(max(2, seconds))))
            p.append(("application_name", applicationName))
            p.append(("client_encoding", "UTF8"))
            // Detect a vanished server on an idle TCP connection.
            p.append(("keepalives", "1"))
            p.append(("keepalives_idle", "30"))
            p.append(("keepalives_interval", "10"))
            p.append(("keepalives_count", "3"))
            var options: [String] = []
            if let statementTimeout {
                let ms = statementTimeout.components.seconds * 1000 + statementTimeout.components.attoseconds / 1_000_000_000_000_000
                options.append("-c statement_timeout=\(max(1, ms))")
            }
            for (name, value) in sessionSettings.sorted(by: { $0.key < $1.key }) {
                // Set by code, never by users: anything but plain words is a programming error.
                precondition(name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || $0 == 0x2E } && !value.isEmpty
                             && value.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2E || $0 == 0x2D },
                             "session setting \(name) must be a plain name and value")
                options.append("-c \(name)=\(value)")
            }
            if !options.isEmpty { p.append(("options", options.joined(separator: " "))) }
            return p
        }
    }
}
