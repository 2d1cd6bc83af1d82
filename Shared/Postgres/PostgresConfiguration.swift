extension PostgresClient {
    /// Where and how to connect, and how the pool behaves.
    ///
    /// Build it field by field or from a URL
    /// `postgres://user:password@host:port/database?sslmode=require`, or with
    /// several servers `postgres://user:password@hostA:5432,hostB:5432/database?target_session_attrs=read-write`.
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
        /// Servers tried after the first (`host`/`port`), in order, as libpq does with a host list (empty by default).
        public var additionalEndpoints: [Endpoint] = []
        /// libpq's `target_session_attrs` (`read-write` to find the primary of a host list); libpq's default (`any`) when nil.
        public var targetSessionAttributes: TargetSessionAttributes?
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
        /// Server-side `statement_timeout` for every statement: nil leaves the
        /// server's setting (none unless its configuration sets one), `.zero`
        /// turns it off for this pool's sessions.
        public var statementTimeout: Duration?
        /// How long data sent to the server may go unacknowledged before the connection is given up (TCP's
        /// `TCP_USER_TIMEOUT`; it also bounds unanswered keepalive probes): a server lost without a reset fails
        /// the statement in flight within this time. 10 s by default; ignored for Unix sockets.
        public var tcpUserTimeout: Duration = .seconds(10)
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
        /// The authority may list several servers, as libpq does:
        /// `postgres://user:pw@hostA:5432,hostB:5432/db?target_session_attrs=read-write`
        /// (IPv6 literals in brackets; a server without a port gets the `port`
        /// query item or 5432). Understood query items: `sslmode`, `sslrootcert`,
        /// `target_session_attrs`, `application_name`, `connect_timeout` (seconds),
        /// `statement_timeout` (milliseconds), `pool_size`, `host` (a comma-separated
        /// list; a Unix socket directory, as libpq allows), `port` (one port for all
        /// hosts or one per host), `user`, `password`, `dbname`. A host that starts
        /// with `/` (percent-encoded as `%2F`) is a socket directory.
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
            // Authority: [userinfo@]host[:port][,host[:port]]…; the last '@' ends userinfo.
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
            var hosts: [String] = []
            var ports: [Int?] = []
            for entry in rest.split(separator: ",", omittingEmptySubsequences: false) {
                let (h, p) = try Self.hostAndPort(entry)
                hosts.append(h)
                ports.append(p)
            }
            if !pathPart.isEmpty { database = try Self.percentDecoded(pathPart, key: "database") }

            var queryPorts: [Int?]?
            for item in queryPart.split(separator: "&") where !item.isEmpty {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = try Self.percentDecoded(pair[0], key: "query")
                let value = pair.count > 1 ? try Self.percentDecoded(pair[1], key: key) : ""
                switch key {
                case "sslmode":
                    guard let mode = SSLMode(rawValue: value) else {
                        throw Self.invalid("sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    sslMode = mode
                case "sslrootcert": sslRootCertificatePath = value
                case "target_session_attrs":
                    guard let attributes = TargetSessionAttributes(rawValue: value) else {
                        throw Self.invalid("target_session_attrs must be one of " +
                                           "\(TargetSessionAttributes.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    targetSessionAttributes = attributes
                case "application_name": applicationName = value
                case "connect_timeout":
                    guard let s = Int(value), s > 0 else { throw Self.invalid("connect_timeout must be a positive number of seconds") }
                    connectTimeout = .seconds(s)
                case "statement_timeout":
                    guard let ms = Int(value), ms >= 0 else { throw Self.invalid("statement_timeout must be milliseconds") }
                    statementTimeout = .milliseconds(ms)
                case "pool_size":
                    guard let n = Int(value), n > 0 else { throw Self.invalid("pool_size must be a positive integer") }
                    poolSize = n
                case "host": hosts = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                case "user": user = value
                case "password": password = value
                case "dbname": database = value
                case "port": queryPorts = try value.split(separator: ",",
                                                          omittingEmptySubsequences: false).map { $0.isEmpty ? nil : try Self.port($0) }
                default: throw Self.invalid("unknown parameter \(key)")
                }
            }
            try setEndpoints(hosts: hosts, ports: ports, queryPorts: queryPorts)
        }

        /// Resolves the parsed host list and port lists into `host`/`port`/`unixSocketDirectory` and `additionalEndpoints`.
        private mutating func setEndpoints(hosts: [String], ports: [Int?], queryPorts: [Int?]?) throws {
            if hosts.count > 1,
               hosts.contains(where: \.isEmpty) { throw Self.invalid("empty host in the host list (hosts are separated by single " +
                                                                     "commas)") }
            // Ports from the query replace those of the authority; one port is every host's, else one per host.
            var perHost = queryPorts ?? ports
            if perHost.count == 1 { perHost = Array(repeating: perHost[0], count: hosts.count) }
            guard perHost.count == hosts.count else {
                throw Self.invalid("port list has \(perHost.count) entries for \(hosts.count) hosts (give one port, or one per host)")
            }
            let list = zip(hosts, perHost).map { Endpoint(host: $0.0.isEmpty ? "127.0.0.1" : $0.0, port: $0.1 ?? 5432) }
            if hosts.count == 1 && hosts[0].isEmpty {
                // No host named: the default one, on the given port.
                port = perHost[0] ?? port
                return
            }
            endpoints = list
        }

        /// One entry of the authority's host list: `host`, `host:port`, `[v6]`, `[v6]:port` (percent-decoded).
        private static func hostAndPort(_ entry: Substring) throws -> (String, Int?) {
            var hostPart = entry
            var port: Int?
            let host: String
            if hostPart.hasPrefix("[") {
                guard let close = hostPart.firstIndex(of: "]") else { throw invalid("unterminated IPv6 address") }
                host = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
                hostPart = hostPart[hostPart.index(after: close)...]
                if hostPart.hasPrefix(":") {
                    port = try Self.port(hostPart.dropFirst())
                } else if !hostPart.isEmpty {
                    throw invalid("unexpected text after IPv6 address")
                }
            } else {
                if let colon = hostPart.lastIndex(of: ":") {
                    port = try Self.port(hostPart[hostPart.index(after: colon)...])
                    hostPart = hostPart[..<colon]
                }
                host = try percentDecoded(hostPart, key: "host")
                guard !host.contains(",") else { throw invalid("a host must not contain a comma (%2C); separate hosts with a " +
                                                               "plain comma") }
            }
            return (host, port)
        }

        private static func port(_ text: Substring) throws -> Int {
            guard let p = Int(text), (1...65535).contains(p) else { throw invalid("port must be 1-65535") }
            return p
        }

        /// Every server to try, in order: the first is `host` (or `unixSocketDirectory`) and `port`, then `additionalEndpoints`.
        ///
        /// Setting it replaces all of them; the list must not be empty, and no host may contain a comma.
        public var endpoints: [Endpoint] {
            get { [Endpoint(host: unixSocketDirectory ?? host, port: port)] + additionalEndpoints }
            set {
                precondition(!newValue.isEmpty, "a configuration needs at least one endpoint")
                let first = newValue[0]
                if first.isUnixSocket {
                    unixSocketDirectory = first.host
                } else {
                    unixSocketDirectory = nil
                    host = first.host
                }
                port = first.port
                additionalEndpoints = Array(newValue.dropFirst())
            }
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
            out += endpoints.map { e in e.isUnixSocket ? "[unix:\(e.host)]" +
                                                         ":\(e.port)" : (e.host.contains(":") ? "[\(e.host)]" : e.host) + ":\(e.port)" }
                .joined(separator: ",")
            out += "/" + (database ?? "") + "?sslmode=" + sslMode.rawValue
            if let targetSessionAttributes { out += "&target_session_attrs=" + targetSessionAttributes.rawValue }
            out += "&application_name=" + applicationName + "&pool_size=\(poolSize)"
            return out
        }

        public var debugDescription: String { description }

        /// `d` in whole milliseconds, rounded down.
        private static func milliseconds(_ d: Duration) -> Int64 {
            d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        }

        /// libpq keyword/value pairs (for `PQconnectdbParams`).
        func libpqParameters() -> [(String, String)] {
            var p: [(String, String)] = []
            let servers = endpoints
            // libpq splits host and port on commas; a comma inside a host is refused when the URL is parsed.
            precondition(servers.allSatisfy { !$0.host.contains(",") }, "a PostgreSQL host must not contain a comma")
            p.append(("host", servers.map(\.host).joined(separator: ",")))
            p.append(("port", servers.map { String($0.port) }.joined(separator: ",")))
            if let targetSessionAttributes { p.append(("target_session_attrs", targetSessionAttributes.rawValue)) }
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
            // Keepalives do not probe while sent data waits for its acknowledgement (a statement sent to a
            // server that vanished without a reset): the kernel would retransmit for about 15 minutes.
            p.append(("tcp_user_timeout", String(max(1, Self.milliseconds(tcpUserTimeout)))))
            var options: [String] = []
            if let statementTimeout {
                // A positive duration under a millisecond must not round down to 0 (which is "none").
                options.append("-c statement_timeout=\(statementTimeout == .zero ? 0 : max(1, Self.milliseconds(statementTimeout)))")
            }
            for (name, value) in sessionSettings.sorted(by: { $0.key < $1.key }) {
                // Set by code, never by users: anything but plain words is a programming error.
                precondition(name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || $0 == 0x2E } && !value.isEmpty
                             && value.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A)
                                 || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2E || $0 == 0x2D },
                             "session setting \(name) must be a plain name and value")
                options.append("-c \(name)=\(value)")
            }
            if !options.isEmpty { p.append(("options", options.joined(separator: " "))) }
            return p
        }
    }
}
