"""Mailwake HTTP test server: HTTPS (or cleartext) on 127.0.0.1, HTTP/2
(python3-h2) and HTTP/1.1 (http.server) chosen by ALPN (or, in cleartext, by
the HTTP/2 connection preface). Prints its port on the first stdout line and
one line per request on stderr. Test-only.

Paths (query parameters optional):
  /echo                    200, JSON: method, path, headers, body (base64), connection, stream, version
  /status/<code>?header=name:value&body=text   that status, headers and body
  /delay?ms=N              echo after N ms (other HTTP/2 streams go on meanwhile)
  /bytes?n=N&chunked=1     N bytes of 'a'; chunked (HTTP/1.1) or no content-length (HTTP/2)
  /redirect?to=/echo       302 to `to`
  /loop                    302 to itself
  /never                   never answers
  /close                   closes the connection without answering
  /refuse                  HTTP/2: RST_STREAM REFUSED_STREAM; HTTP/1.1: close
  (streams beyond --max-streams are refused with RST_STREAM REFUSED_STREAM)
  /goaway?last=N&close_ms=M  HTTP/2: GOAWAY with last stream id N (default: the stream before this
                           one), earlier streams still served, connection closed after M ms (default 1000)
"""
import argparse, base64, http.server, json, socket, socketserver, ssl, sys, threading, time, urllib.parse

args = None
counter_lock = threading.Lock()
connection_count = 0


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def next_connection():
    global connection_count
    with counter_lock:
        connection_count += 1
        return connection_count


def plan(method, target, headers, body, conn_id, stream_id, version):
    """What to do for a request: ('respond', status, headers, body, delay) or ('close'|'refuse'|'goaway'|'never',)."""
    url = urllib.parse.urlsplit(target)
    query = urllib.parse.parse_qs(url.query)
    path = url.path
    echo = json.dumps({
        "method": method, "path": target, "headers": [[n, v] for n, v in headers],
        "body": base64.b64encode(body).decode(), "connection": conn_id, "stream": stream_id, "version": version,
    }).encode()
    json_headers = [("content-type", "application/json")]
    if path == "/echo":
        return ("respond", 200, json_headers, echo, 0)
    if path == "/delay":
        return ("respond", 200, json_headers, echo, int(query.get("ms", ["1000"])[0]) / 1000)
    if path.startswith("/status/"):
        extra = [tuple(h.split(":", 1)) for h in query.get("header", [])]
        return ("respond", int(path[len("/status/"):]), [(n.strip(), v.strip()) for n, v in extra], query.get("body", [""])[0].encode(), 0)
    if path == "/bytes":
        n = int(query.get("n", ["0"])[0])
        hs = [("content-type", "application/octet-stream")]
        if query.get("chunked", ["0"])[0] == "1":
            hs.append(("x-no-length", "1"))
        return ("respond", 200, hs, b"a" * n, 0)
    if path == "/redirect":
        return ("respond", 302, [("location", query.get("to", ["/echo"])[0])], b"", 0)
    if path == "/loop":
        return ("respond", 302, [("location", "/loop")], b"", 0)
    if path in ("/never", "/close", "/refuse", "/goaway"):
        return (path[1:],)
    return ("respond", 404, [], b"not found", 0)


# MARK: HTTP/1.1

class H1Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def handle_one(self):
        length = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(length) if length else b""
        log("request", self.conn_id, 0, self.command, self.path)
        action = plan(self.command, self.path, list(self.headers.items()), body, self.conn_id, 0, "HTTP/1.1")
        kind = action[0]
        if kind == "never":
            time.sleep(3600)
        if kind != "respond":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        _, status, headers, payload, delay = action
        if delay:
            time.sleep(delay)
        self.send_response(status)
        chunked = any(n == "x-no-length" for n, _ in headers)
        for n, v in headers:
            self.send_header(n, v)
        if chunked:
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for i in range(0, len(payload), 16384):
                part = payload[i:i + 16384]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = handle_one


# MARK: HTTP/2

class H2Connection:
    def __init__(self, sock, conn_id):
        import h2.config, h2.connection
        self.sock = sock
        self.conn_id = conn_id
        self.lock = threading.RLock()
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.requests = {}
        self.pending = {}  # stream id -> remaining bytes waiting for flow control
        self.active = set()  # streams received and not yet fully answered
        self.closed = False

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            try:
                self.sock.sendall(data)
            except OSError:
                self.closed = True

    def run(self):
        import collections, h2.errors, h2.events, h2.settings
        with self.lock:
            # In the first SETTINGS frame, as APNs does (it starts at 1).
            self.conn.local_settings = h2.settings.Settings(
                client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: args.max_streams})
            self.conn.initiate_connection()
            # Enforce the limit here instead (REFUSED_STREAM for excess
            # streams, RFC 9113 §5.1.2) rather than h2's connection error.
            self.conn.local_settings._settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS] = collections.deque([2**31 - 1])
            self.flush()
        while not self.closed:
            try:
                data = self.sock.recv(65536)
            except OSError:
                break
            if not data:
                break
            with self.lock:
                try:
                    events = self.conn.receive_data(data)
                except Exception as e:  # protocol error: report and close
                    log("h2 error", self.conn_id, repr(e))
                    self.flush()
                    break
                for event in events:
                    if isinstance(event, h2.events.RequestReceived):
                        if len(self.active) >= args.max_streams:
                            log("refused", self.conn_id, event.stream_id)
                            self.conn.reset_stream(event.stream_id, error_code=h2.errors.ErrorCodes.REFUSED_STREAM)
                            continue
                        self.active.add(event.stream_id)
                        self.requests[event.stream_id] = [event.headers, bytearray()]
                    elif isinstance(event, h2.events.DataReceived):
                        if event.stream_id in self.requests:
                            self.requests[event.stream_id][1] += event.data
                        self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        if event.stream_id in self.requests:
                            self.dispatch(event.stream_id)
                    elif isinstance(event, h2.events.WindowUpdated):
                        self.send_pending()
                    elif isinstance(event, h2.events.StreamReset):
                        self.pending.pop(event.stream_id, None)
                        self.active.discard(event.stream_id)
                        self.requests.pop(event.stream_id, None)
                        log("reset", self.conn_id, event.stream_id)
                self.flush()
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    def dispatch(self, stream_id):
        import h2.errors
        headers, body = self.requests.pop(stream_id)
        pseudo = dict((n, v) for n, v in headers if n.startswith(":"))
        log("request", self.conn_id, stream_id, pseudo.get(":method"), pseudo.get(":path"))
        action = plan(pseudo.get(":method"), pseudo.get(":path"), headers, bytes(body), self.conn_id, stream_id, "HTTP/2")
        kind = action[0]
        if kind == "never":
            return
        if kind == "close":
            self.closed = True
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if kind == "refuse":
            self.conn.reset_stream(stream_id, error_code=h2.errors.ErrorCodes.REFUSED_STREAM)
            self.active.discard(stream_id)
            return
        if kind == "goaway":
            # GOAWAY written by hand so that streams up to last_stream_id are
            # still served (the h2 state machine would refuse to send after
            # its own close_connection); the socket closes after close_ms.
            import hyperframe.frame
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(pseudo.get(":path")).query)
            last = int(query.get("last", [str(max(0, stream_id - 2))])[0])
            close_ms = int(query.get("close_ms", ["1000"])[0])
            self.flush()
            frame = hyperframe.frame.GoAwayFrame(0)
            frame.last_stream_id = last
            frame.error_code = 0
            try:
                self.sock.sendall(frame.serialize())
            except OSError:
                pass
            threading.Timer(close_ms / 1000, self.shut).start()
            return
        _, status, extra, payload, delay = action
        if delay:
            threading.Timer(delay, self.respond_locked, (stream_id, status, extra, payload, pseudo.get(":method"))).start()
        else:
            self.respond(stream_id, status, extra, payload, pseudo.get(":method"))

    def shut(self):
        with self.lock:
            self.closed = True
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def respond_locked(self, *a):
        with self.lock:
            if not self.closed:
                self.respond(*a)
                self.flush()

    def respond(self, stream_id, status, extra, payload, method="GET"):
        import h2.exceptions
        no_length = any(n == "x-no-length" for n, _ in extra)
        headers = [(":status", str(status))] + [(n.lower(), v) for n, v in extra]
        if not no_length:
            headers.append(("content-length", str(len(payload))))
        if method == "HEAD":
            payload = b""
        try:
            self.conn.send_headers(stream_id, headers, end_stream=not payload)
            if not payload:
                self.active.discard(stream_id)
        except h2.exceptions.StreamClosedError:
            self.active.discard(stream_id)
            return
        if payload:
            self.pending[stream_id] = bytes(payload)
            self.send_pending()

    def send_pending(self):
        import h2.exceptions
        for stream_id in list(self.pending):
            data = self.pending[stream_id]
            try:
                while data:
                    window = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
                    if window <= 0:
                        break
                    self.conn.send_data(stream_id, data[:window])
                    data = data[window:]
                if data:
                    self.pending[stream_id] = data
                else:
                    del self.pending[stream_id]
                    self.active.discard(stream_id)
                    self.conn.end_stream(stream_id)
            except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                self.pending.pop(stream_id, None)
                self.active.discard(stream_id)


# MARK: server

class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # the default 5 drops SYNs of bursts (a 1 s retransmit)


class Connection(socketserver.BaseRequestHandler):
    def handle(self):
        conn_id = next_connection()
        sock = self.request
        if args.plain:
            try:
                preface = sock.recv(24, socket.MSG_PEEK)
            except OSError:
                return
            version = "h2" if preface.startswith(b"PRI * HTTP/2.0") else "http/1.1"
        else:
            try:
                sock = context.wrap_socket(sock, server_side=True)
            except (OSError, ssl.SSLError) as e:
                log("tls failure", conn_id, repr(e))
                return
            version = sock.selected_alpn_protocol() or "http/1.1"
        log("connection", conn_id, version)
        if version == "h2":
            H2Connection(sock, conn_id).run()
        else:
            handler = H1Handler.__new__(H1Handler)
            handler.conn_id = conn_id
            try:
                handler.__init__(sock, self.client_address, self.server)
            except (OSError, ssl.SSLError):
                pass


def main():
    global args, context
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--alpn", default="h2,http/1.1")
    parser.add_argument("--plain", action="store_true")
    parser.add_argument("--max-streams", type=int, default=100)
    args = parser.parse_args()
    if not args.plain:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        context.set_alpn_protocols(args.alpn.split(","))
    server = Server(("127.0.0.1", 0), Connection)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
