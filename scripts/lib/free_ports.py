"""Prints N distinct loopback TCP ports that bind now, on one line, separated by spaces.

Usage: free_ports.py N

The ports come from 15000 up to the start of the kernel's ephemeral range
(net.ipv4.ip_local_port_range), as Tests/Support/PortAllocator.swift does. A
port from binding port 0 lies inside that range, where any outgoing connection
(a PostgreSQL login, an image build's download, podman's own connections) may
take it as its source port before the server binds it: CI's compose suite met
"listen tcp4 127.0.0.1:48015: bind: address already in use" four minutes after
choosing it. Without SO_REUSEADDR, a port in TIME_WAIT is refused too.
"""

import random
import socket
import sys

LOWEST = 15000


def ephemeral_start():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def binds(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", port))
        return s.getsockname()[1]
    except OSError:
        return None
    finally:
        s.close()


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or not 1 <= int(sys.argv[1]) <= 64:
        sys.exit("usage: free_ports.py N (1 to 64)")
    wanted = int(sys.argv[1])
    start = ephemeral_start()
    choose = (lambda: random.randrange(LOWEST, start)) if start and start > LOWEST + 1000 else (lambda: 0)
    ports = []
    for _ in range(200 * wanted):
        port = binds(choose())
        if port and port not in ports:
            ports.append(port)
            if len(ports) == wanted:
                print(" ".join(map(str, ports)))
                return
    sys.exit(f"free_ports.py: no {wanted} distinct free loopback ports in {200 * wanted} tries")


main()
