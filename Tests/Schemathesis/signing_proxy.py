#!/usr/bin/env python3
"""A local plain-HTTP proxy that signs every request as a Mailwake device
(PROTOCOL.md §8) and forwards it to an outpost over HTTPS, trusting the
outpost by its pinned TLS key (§10). Schemathesis talks to the proxy, so the
fuzzer's requests reach the outpost's real handlers instead of stopping at
the signature check.

Usage: signing_proxy.py --device DIR/device.json --target https://127.0.0.1:PORT
                        --origin ORIGIN --pin B64U --listen PORT
"""
import argparse
import base64
import hashlib
import http.client
import http.server
import json
import os
import socket
import ssl
import struct
import sys
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils
from cryptography.x509 import load_der_x509_certificate


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64u_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def lp(x) -> bytes:
    if isinstance(x, str):
        x = x.encode()
    return struct.pack(">I", len(x)) + x


class Signer:
    def __init__(self, device_file: str, origin: str):
        state = json.load(open(device_file))
        self.key = serialization.load_der_private_key(b64u_decode(state["signingKey"]), password=None)
        public = self.key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.key_id = b64u(hashlib.sha256(public).digest()[:16])
        self.origin = origin

    def header(self, method: str, target: str, body: bytes) -> str:
        ts = str(int(time.time()))
        nonce = os.urandom(16)
        message = (lp("mailwake/request/v1") + lp(method.upper()) + lp(self.origin) + lp(target) + lp(ts) + lp(nonce)
                   + lp(hashlib.sha256(body).digest()))
        r, s = utils.decode_dss_signature(self.key.sign(message, ec.ECDSA(hashes.SHA256())))
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        return f'keyid="{self.key_id}", ts="{ts}", nonce="{b64u(nonce)}", sig="{b64u(sig)}"'


def spki_sha256(der_certificate: bytes) -> bytes:
    public = load_der_x509_certificate(der_certificate).public_key()
    return hashlib.sha256(public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)).digest()


def make_handler(signer: Signer, host: str, port: int, pin: bytes):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE   # trust is the pin, checked below

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def forward(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection", "content-length", "mailwake-signature")}
            headers["Mailwake-Signature"] = signer.header(self.command, self.path, body)
            connection = http.client.HTTPSConnection(host, port, context=context, timeout=60)
            try:
                connection.connect()
                if spki_sha256(connection.sock.getpeercert(binary_form=True)) != pin:
                    raise ssl.SSLError("the outpost's TLS key does not match the pin")
                connection.request(self.command, self.path, body=body if (body or self.command in ("POST", "PUT", "PATCH")) else None, headers=headers)
                response = connection.getresponse()
                data = b"" if self.command == "HEAD" else response.read()
                self.send_response(response.status, response.reason)
                for k, v in response.getheaders():
                    if k.lower() not in ("connection", "transfer-encoding", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", response.getheader("Content-Length", "0") if self.command == "HEAD" else str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            finally:
                connection.close()

        def __getattr__(self, name):
            # Every method (QUERY, TRACE, made-up ones) goes to the outpost, whose answer is what is tested.
            if name.startswith("do_"):
                return self.forward
            raise AttributeError(name)

    return Handler


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--device", required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--origin", required=True)
    p.add_argument("--pin", required=True)
    p.add_argument("--listen", type=int, required=True)
    a = p.parse_args()
    target = a.target.removeprefix("https://")
    host, port = target.rsplit(":", 1)
    signer = Signer(a.device, a.origin)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", a.listen), make_handler(signer, host, int(port), b64u_decode(a.pin)))
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
