#!/usr/bin/env python3
"""One APNs push over TLS without ALPN: HTTP/2 by prior knowledge, as some
gateways' clients do (Apple's servers accept it). Standard library only: the
frames and the HPACK block are written by hand (literal headers, no Huffman).

Usage: h2_without_alpn.py HOST PORT CAFILE AUTHORIZATION DEVICE_TOKEN TOPIC
Prints `status=<n>` (from the response's indexed :status), or
`refused: <reason>` when the server ends the TLS connection."""
import socket, ssl, struct, sys

def frame(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload

def integer(n, prefix_bits=7):
    """An HPACK integer (RFC 7541 §5.1) with a 7-bit prefix, no Huffman flag."""
    limit = (1 << prefix_bits) - 1
    if n < limit:
        return bytes([n])
    out, n = [limit], n - limit
    while n >= 128:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    return bytes(out + [n])

def literal(name, value):
    """A literal header field without indexing, new name (RFC 7541 §6.2.2)."""
    n, v = name.encode(), value.encode()
    return b"\x00" + integer(len(n)) + n + integer(len(v)) + v

STATIC_STATUS = {0x88: 200, 0x89: 204, 0x8A: 206, 0x8B: 304, 0x8C: 400, 0x8D: 404, 0x8E: 500}

def main():
    host, port, cafile, authorization, token, topic = sys.argv[1:7]
    context = ssl.create_default_context(cafile=cafile)   # no set_alpn_protocols: no ALPN extension at all
    body = b'{"aps":{"alert":{"title":"New mail","body":"Open to view"}}}'
    block = b"".join([
        literal(":method", "POST"), literal(":scheme", "https"), literal(":authority", "%s:%s" % (host, port)),
        literal(":path", "/3/device/" + token), literal("authorization", authorization), literal("apns-topic", topic),
        literal("content-length", str(len(body))),
    ])
    try:
        with socket.create_connection((host, int(port)), timeout=20) as raw, context.wrap_socket(raw, server_hostname=host) as tls:
            tls.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b"") + frame(1, 4, 1, block) + frame(0, 1, 1, body))
            buffer = b""
            while True:
                chunk = tls.recv(65536)
                if not chunk:
                    print("refused: the server closed the connection")
                    return
                buffer += chunk
                while len(buffer) >= 9:
                    length = int.from_bytes(buffer[:3], "big")
                    if len(buffer) < 9 + length:
                        break
                    kind, flags, stream = buffer[3], buffer[4], int.from_bytes(buffer[5:9], "big") & 0x7FFFFFFF
                    payload, buffer = buffer[9:9 + length], buffer[9 + length:]
                    if kind == 4 and not flags & 1:
                        tls.sendall(frame(4, 1, 0, b""))          # acknowledge the server's SETTINGS
                    elif kind == 7:
                        print("refused: GOAWAY")
                        return
                    elif kind == 1 and stream == 1:
                        print("status=%s" % STATIC_STATUS.get(payload[0], "literal"))
                        return
    except (ssl.SSLError, ConnectionError, OSError) as error:
        print("refused: %s" % type(error).__name__)

if __name__ == "__main__":
    main()
