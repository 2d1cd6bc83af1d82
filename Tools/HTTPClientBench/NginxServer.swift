import Foundation
import MailwakeBenchKit
import MailwakeCore

/// nginx on loopback with a self-signed certificate: an HTTP/2 (TLS, ALPN)
/// and an HTTP/1.1 (TLS) listener answering every request with a small JSON
/// body, in a process of its own so that its CPU is not the client's.
struct NginxServer {
    let process: BenchProcess
    let work: URL
    let h2Port: UInt16
    let h1Port: UInt16
    /// The certificate the client trusts (its only CA).
    let certificate: String

    static let reply = #"{"reason":"ok","apns-id":"01936f3e-7c1a-7d2b-9c4e-2f1a0b3c4d5e"}"#

    /// Writes the certificate and configuration under a new directory and starts nginx (one worker).
    static func start() async throws -> NginxServer {
        let nginx = "/usr/sbin/nginx"
        guard FileManager.default.isExecutableFile(atPath: nginx) else { throw BenchError("\(nginx) is missing (Debian: nginx)") }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-http-client-bench-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let path = { (name: String) in work.appendingPathComponent(name).path }
        let certificateArguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                                    path("tls.key"),
                                    "-out", path("tls.pem"), "-days", "1", "-subj", "/CN=localhost", "-addext",
                                    "subjectAltName=DNS:localhost,IP:127.0.0.1"]
        try await OwnThread.run { try BenchSystem.openssl(certificateArguments) }
        let h2Port = try BenchSystem.freePort(), h1Port = try BenchSystem.freePort()
        // keepalive_requests also bounds requests per HTTP/2 connection (nginx ≥ 1.19.7): a GOAWAY mid-burst would measure reconnects.
        let config = """
            worker_processes 1;
            daemon off;
            pid \(path("nginx.pid"));
            error_log \(path("error.log")) warn;
            \(getuid() == 0 ? "user root;" : "")
            events { worker_connections 4096; }
            http {
              access_log off;
              keepalive_requests 100000000;
              keepalive_timeout 300s;
              http2_max_concurrent_streams 128;
              client_body_temp_path \(path("body"));
              proxy_temp_path \(path("proxy"));
              fastcgi_temp_path \(path("fastcgi"));
              uwsgi_temp_path \(path("uwsgi"));
              scgi_temp_path \(path("scgi"));
              ssl_certificate \(path("tls.pem"));
              ssl_certificate_key \(path("tls.key"));
              server {
                listen 127.0.0.1:\(h2Port) ssl http2;
                location / { default_type application/json; return 200 '\(reply)'; }
              }
              server {
                listen 127.0.0.1:\(h1Port) ssl;
                location / { default_type application/json; return 200 '\(reply)'; }
              }
            }
            """
        try config.write(toFile: path("nginx.conf"), atomically: true, encoding: .utf8)
        let process = try BenchProcess(executable: nginx, arguments: ["-c", path("nginx.conf"), "-e", path("error.log")],
                                       logPath: path("nginx.log"))
        return NginxServer(process: process, work: work, h2Port: h2Port, h1Port: h1Port, certificate: path("tls.pem"))
    }

    func stop() async {
        let process = self.process
        await OwnThread.run { process.stop() }
        try? FileManager.default.removeItem(at: work)
    }
}
