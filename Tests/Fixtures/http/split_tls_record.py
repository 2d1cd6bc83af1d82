#!/usr/bin/env python3
"""One HTTPS request whose TLS record reaches the server in two parts: first only the record's 5-byte header,
then, after PAUSE seconds, its body. Prints the answer's status line.

usage: split_tls_record.py HOST PORT PAUSE
"""
import socket
import ssl
import sys
import time

host, port, pause = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = context.wrap_bio(incoming, outgoing, server_hostname="localhost")
sock = socket.create_connection((host, port), timeout=30)


def receive():
    chunk = sock.recv(65536)
    if not chunk:
        sys.exit("the server closed the connection")
    incoming.write(chunk)


while True:
    try:
        tls.do_handshake()
        break
    except ssl.SSLWantReadError:
        sock.sendall(outgoing.read())
        receive()
sock.sendall(outgoing.read())

tls.write(b"GET /v1/things/split HTTP/1.1\r\nHost: localhost\r\n\r\n")
record = outgoing.read()
sock.sendall(record[:5])
time.sleep(pause)
sock.sendall(record[5:])

answer = b""
while b"\r\n" not in answer:
    receive()
    try:
        answer += tls.read(65536)
    except ssl.SSLWantReadError:
        pass
print(answer.split(b"\r\n", 1)[0].decode())
