import CH2ClientShims
import MailwakeCore
import MailwakeHTTPTypes

extension HTTP2Client {
    /// What the C client's callbacks reach, on its thread: answers resume
    /// their callers, log lines go to the client's logger.
    final class Callbacks: Sendable {
        let logger: Logger
        /// `https://host[:port]`: what log lines may say about the target.
        let origin: String
        let metrics: ClientMetrics?

        init(logger: Logger, origin: String, metrics: ClientMetrics?) {
            self.logger = logger
            self.origin = origin
            self.metrics = metrics
        }

        /// Builds the response or the error from `result`, logs, counts and resumes.
        func finish(_ exchange: HTTP2Exchange, _ result: mw_h2c_result) {
            let elapsed = ContinuousClock.now - exchange.started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            metrics?.inFlight.decrement()
            guard Int(result.error) == MW_H2C_OK else {
                if Int(result.error) == MW_H2C_CANCELLED {
                    exchange.logger.debug("http client request cancelled", ["method": .string(exchange.method.rawValue),
                                                                            "origin": .string(origin)])
                    metrics?.record(outcome: "cancelled", seconds: seconds)
                    exchange.resume(.failure(CancellationError()))
                    return
                }
                let error = HTTPClientError(Self.code(Int(result.error)), String(cString: result.message))
                exchange.logger.info("http client request failed", [
                    "method": .string(exchange.method.rawValue), "origin": .string(origin), "error": .string(error.code.rawValue),
                    "detail": .string(error.message), "duration_ms": .int(Int(seconds * 1000)),
                ])
                metrics?.record(outcome: error.code.rawValue, seconds: seconds)
                exchange.resume(.failure(error))
                return
            }
            let body = result.body_len == 0 ? [] : Array(UnsafeBufferPointer(start: result.body, count: result.body_len))
            let response = HTTPClient.Response(status: HTTPStatus(Int(result.status)), headers: Self.headers(result),
                                               body: body, version: .http2,
                                               transfer: .init(newConnections: Int(result.new_connection),
                                                               localPort: Int(result.connection_id), totalSeconds: seconds,
                                                               connectSeconds: 0))
            exchange.logger.debug("http client request done", [
                "method": .string(exchange.method.rawValue), "origin": .string(origin), "status": .int(Int(result.status)),
                "duration_ms": .int(Int(seconds * 1000)), "connection": .int(Int(result.connection_id)),
            ])
            metrics?.record(outcome: "\(result.status / 100)xx", seconds: seconds)
            exchange.resume(.success(response))
        }

        func log(level: Int32, connection: UInt64, message: String) {
            var fields: [String: LogValue] = [:]
            if connection > 0 { fields["connection"] = .int(Int(connection)) }
            switch level {
            case 0: logger.debug(message, fields)
            case 1: logger.info(message, fields)
            default: logger.warning(message, fields)
            }
        }

        /// The `name\0value\0` pairs of `result`.
        static func headers(_ result: mw_h2c_result) -> HTTPHeaders {
            guard result.header_count > 0, let start = result.headers else { return HTTPHeaders() }
            let bytes = UnsafeRawBufferPointer(start: start, count: result.headers_len)
            var headers = HTTPHeaders()
            headers.reserveCapacity(Int(result.header_count))
            var name: String?
            var from = 0
            for i in 0..<bytes.count where bytes[i] == 0 {
                let part = String(decoding: bytes[from..<i], as: UTF8.self)
                from = i + 1
                if let field = name {
                    headers.add(field, part)
                    name = nil
                } else {
                    name = part
                }
            }
            return headers
        }

        static func code(_ error: Int) -> HTTPClientError.Code {
            switch error {
            case MW_H2C_CONNECT: .connect
            case MW_H2C_TLS: .tls
            case MW_H2C_TIMEOUT: .timeout
            case MW_H2C_TOO_LARGE: .responseTooLarge
            case MW_H2C_SHUTDOWN: .shutdown
            case MW_H2C_STREAM_REFUSED: .streamRefused
            case MW_H2C_CONNECTION_CLOSED: .connectionClosed
            case MW_H2C_INCOMPLETE: .incompleteResponse
            case MW_H2C_PROTOCOL: .protocol
            case MW_H2C_CANCELLED: .cancelled
            default: .other
            }
        }
    }
}
