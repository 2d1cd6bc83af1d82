"""Mutated HTTP/1.1 requests against fuzz_server (scripts/fuzz-http-engine).

usage: fuzz_client.py PORT plain|tls SECONDS SEED

24 threads open connections for SECONDS; each sends one to four requests from a corpus of valid ones
(keep-alive, pipelining, chunked with extensions and trailers, 100-continue, HEAD, HTTP/1.0, bodies at
and past the limit), mutated (bytes flipped, CR, LF, NUL, framing headers inserted, cut, repeated), in
pieces from 1 byte to 64 KiB; then reads, half-closes, closes or resets. Finally one clean request must
get 200; exit status 1 otherwise. The server's sanitizers judge the rest.
"""
import random, socket, ssl, struct, sys, threading, time

PORT = int(sys.argv[1]); TLS = sys.argv[2] == "tls"; SECONDS = float(sys.argv[3]); SEED = int(sys.argv[4])
BASES = [
 b"GET /ok HTTP/1.1\r\nHost: x\r\n\r\n",
 b"GET /odd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
 b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
 b"POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n3\r\nabc\r\n0\r\nT: 1\r\n\r\n",
 b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\nabc",
 b"HEAD /ok HTTP/1.1\r\nHost: x\r\n\r\nGET /ok2 HTTP/1.1\r\nHost: x\r\n\r\n",
 b"GET /ok HTTP/1.0\r\n\r\n",
 b"\r\n\r\nGET /lead HTTP/1.1\r\nHost: x\r\n\r\n",
 b"POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 19000\r\n\r\n" + b"z" * 19000,
 b"POST /toobig HTTP/1.1\r\nHost: x\r\nContent-Length: 25000\r\n\r\n" + b"z" * 25000,
 b"POST /chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + b"".join(b"%x\r\n%s\r\n" % (n, b"q" * n) for n in [1, 700, 4000, 9000, 9000]) + b"0\r\n\r\n",
]
TOKENS = [b"\r\n", b"\n", b"\r", b"\x00", b" ", b":", b"\t", b"Content-Length: 7\r\n", b"Transfer-Encoding: chunked\r\n",
          b"Host: y\r\n", b"ffffffffffffffffff\r\n", b"-1", b"99999999999999999999999", b"\xff\xfe", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"]
stats = {"conns": 0, "answers": 0, "errors": 0}
lock = threading.Lock()
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE

def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3, 8])):
        op = rng.randrange(5)
        pos = rng.randrange(len(data) + 1)
        if op == 0 and data: data[min(pos, len(data) - 1)] = rng.randrange(256)
        elif op == 1: data[pos:pos] = rng.choice(TOKENS)
        elif op == 2 and data: del data[pos:pos + rng.randrange(1, 20)]
        elif op == 3: data[pos:pos] = data[max(0, pos - 30):pos]
        else: data = data[:pos]
    return bytes(data)

def worker(seed, deadline):
    rng = random.Random(seed)
    while time.time() < deadline:
        try:
            s = socket.create_connection(("127.0.0.1", PORT), timeout=3)
            if TLS:
                s = ctx.wrap_socket(s, server_hostname="localhost")
            with lock: stats["conns"] += 1
            payload = b"".join(mutate(rng, rng.choice(BASES)) for _ in range(rng.choice([1, 1, 1, 2, 4])))
            i = 0
            while i < len(payload):
                n = rng.choice([1, 2, 7, 100, 1000, 65536])
                s.sendall(payload[i:i + n]); i += n
                if rng.random() < 0.05: time.sleep(0.002)
            end = rng.random()
            if end < 0.15:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); s.close(); continue
            if end < 0.3:
                s.shutdown(socket.SHUT_WR)
            s.settimeout(0.5)
            got = b""
            try:
                while len(got) < 200000:
                    chunk = s.recv(65536)
                    if not chunk: break
                    got += chunk
            except Exception:
                pass
            with lock: stats["answers"] += got.count(b"HTTP/1.1 ")
            s.close()
        except Exception:
            with lock: stats["errors"] += 1

deadline = time.time() + SECONDS
threads = [threading.Thread(target=worker, args=(SEED * 1000 + k, deadline)) for k in range(24)]
for t in threads: t.start()
for t in threads: t.join()
# liveness
time.sleep(3)
s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
if TLS: s = ctx.wrap_socket(s, server_hostname="localhost")
s.sendall(b"GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
resp = b""
while True:
    c = s.recv(4096)
    if not c: break
    resp += c
print("fuzz_client:", stats, "then a clean request:", resp.split(b"\r\n")[0].decode(errors="replace"))
sys.exit(0 if resp.startswith(b"HTTP/1.1 200 ") and stats["conns"] > 0 else 1)
