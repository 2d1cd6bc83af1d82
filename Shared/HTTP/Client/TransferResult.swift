import CCurlShims
import MailwakeHTTPTypes

/// Turns a finished curl transfer into a response or a typed error.
enum TransferResult {
    static func make(_ transfer: CurlTransfer, _ result: CURLcode) -> Result<HTTPClient.Response, any Error> {
        let easy = transfer.easy
        var status = 0
        _ = mw_curl_get_long(easy, CURLINFO_RESPONSE_CODE, &status)
        guard result == CURLE_OK else { return .failure(error(transfer, result, responseStarted: status != 0)) }

        var version = 0
        _ = mw_curl_get_long(easy, CURLINFO_HTTP_VERSION, &version)
        var bodyLength = 0
        let bodyBytes = mw_transfer_body(transfer.raw, &bodyLength)
        let body = bodyLength > 0 && bodyBytes != nil ? Array(UnsafeBufferPointer(start: bodyBytes, count: bodyLength)) : []
        var headerLength = 0
        let headerBytes = mw_transfer_header_block(transfer.raw, &headerLength)
        let headers = headerLength > 0 && headerBytes != nil
            ? headerBytes!.withMemoryRebound(to: UInt8.self,
                                             capacity: headerLength) { parseHeaderBlock(UnsafeBufferPointer(start: $0,
                                                 count: headerLength)) }
            : HTTPHeaders()
        return .success(HTTPClient.Response(status: HTTPStatus(status), headers: headers, body: body,
                                            version: httpVersion(version), transfer: info(easy)))
    }

    static func info(_ easy: UnsafeMutableRawPointer) -> HTTPClient.TransferInfo {
        var connects = 0, port = 0
        var total: curl_off_t = 0, connect: curl_off_t = 0
        _ = mw_curl_get_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        _ = mw_curl_get_long(easy, CURLINFO_LOCAL_PORT, &port)
        _ = mw_curl_get_off_t(easy, CURLINFO_TOTAL_TIME_T, &total)
        _ = mw_curl_get_off_t(easy, CURLINFO_CONNECT_TIME_T, &connect)
        return HTTPClient.TransferInfo(newConnections: connects, localPort: port, totalSeconds: Double(total) / 1e6,
                                       connectSeconds: Double(connect) / 1e6)
    }

    static func httpVersion(_ v: Int) -> HTTPClient.HTTPVersion {
        switch v {
        case CURL_HTTP_VERSION_1_0: .http1_0
        case CURL_HTTP_VERSION_1_1: .http1_1
        case CURL_HTTP_VERSION_2_0: .http2
        case CURL_HTTP_VERSION_3: .http3
        default: .unknown
        }
    }

    /// Parses curl's header block: a status line, then `name: value` lines
    /// (obsolete line folding is joined with one space), then a blank line.
    static func parseHeaderBlock(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPHeaders {
        var fields: [(String, String)] = []
        var sawStatus = false
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            var lineEnd = end
            if lineEnd > start, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let line = UnsafeBufferPointer(rebasing: bytes[start..<lineEnd])
            start = end + 1
            if line.isEmpty { continue }
            if !sawStatus {
                sawStatus = true
                if line.starts(with: "HTTP/".utf8) { continue }
            }
            if line[0] == 0x20 || line[0] == 0x09 {
                if let last = fields.popLast() {
                    fields.append((last.0, last.1 + " " + trimmed(line[...])))
                }
                continue
            }
            guard let colon = line.firstIndex(of: 0x3A) else { continue }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            fields.append((name, trimmed(line[(colon + 1)...])))
        }
        return HTTPHeaders(fields)
    }

    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        var lo = bytes.startIndex, hi = bytes.endIndex
        while lo < hi, bytes[lo] == 0x20 || bytes[lo] == 0x09 { lo += 1 }
        while hi > lo, bytes[hi - 1] == 0x20 || bytes[hi - 1] == 0x09 { hi -= 1 }
        return String(decoding: bytes[lo..<hi], as: UTF8.self)
    }

    static func error(_ transfer: CurlTransfer, _ result: CURLcode, responseStarted: Bool) -> HTTPClientError {
        let refused = String(cString: mw_transfer_refused_address(transfer.raw))
        if result == CURLE_ABORTED_BY_CALLBACK, !refused.isEmpty {
            return HTTPClientError(.refusedAddress,
                                   "refused to connect to \(refused): not a public address (loopback, private or link-local)",
                                   curlCode: Int(result.rawValue))
        }
        let summary = String(cString: curl_easy_strerror(result))
        let detail = String(cString: mw_transfer_error_message(transfer.raw))
        let started = responseStarted || mw_transfer_bytes_received(transfer.raw) > 0
        let code = classify(result, detail: detail, responseStarted: started, tooLarge: mw_transfer_too_large(transfer.raw) != 0)
        let message = detail.isEmpty || detail == summary ? summary : "\(summary): \(detail)"
        return HTTPClientError(code, message, curlCode: Int(result.rawValue))
    }

    static func classify(_ result: CURLcode, detail: String, responseStarted: Bool, tooLarge: Bool) -> HTTPClientError.Code {
        switch result {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .connect
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .pinMismatch
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
             CURLE_USE_SSL_FAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return .tls
        case CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge
        case CURLE_WRITE_ERROR:
            return tooLarge ? .responseTooLarge : .other
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT:
            return .invalidRequest
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled
        case CURLE_HTTP2_STREAM:
            // The stream was reset. Only REFUSED_STREAM promises the server did
            // not process it (RFC 9113 §8.7); libcurl names the code in its message.
            if responseStarted { return .incompleteResponse }
            return detail.contains("REFUSED_STREAM") ? .streamRefused : .protocol
        case CURLE_HTTP2:
            // libcurl 7.88 retries a refused stream by itself only sometimes:
            // when a GOAWAY excludes a stream it has already retried it gives up
            // with this code and no response (measured against the Python test
            // server's /goaway).
            return responseStarted ? .incompleteResponse : .streamRefused
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE:
            return responseStarted ? .incompleteResponse : .connectionClosed
        case CURLE_TOO_MANY_REDIRECTS, CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING:
            return .protocol
        default:
            return tooLarge ? .responseTooLarge : .other
        }
    }
}
