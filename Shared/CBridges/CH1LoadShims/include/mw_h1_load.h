#ifndef MAILWAKE_MW_H1_LOAD_H
#define MAILWAKE_MW_H1_LOAD_H
/*
 * A lean HTTP/1.1 load client for the benches: keep-alive TLS connections,
 * one request in flight on each, driven by one thread with epoll. It exists
 * so that the load a bench offers costs the shared machine little (libcurl
 * spends about 40 µs of CPU a request here, most of what a bench's client
 * costs); the services are measured with their own clients.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One run: `connections` connections to `ip`:`port` (an IPv4 or IPv6
 * literal; the server's certificate must name that address and chain to
 * `ca_file`) post the `count` bodies in order (`bodies` holds them one after
 * the other, body i `lengths[i]` bytes long), `POST path HTTP/1.1` with Host:
 * `host_header`, Content-Type: application/json and Content-Length, one
 * request in flight on each connection, until every body has an answer.
 *
 * `due_ns` NULL is a closed loop: each connection sends its next request
 * when the last one is answered. Otherwise an open loop: body i is due
 * `due_ns[i]` nanoseconds after the start (CLOCK_MONOTONIC; the offsets must
 * not decrease) and is written then, or as soon after as a connection has
 * nothing in flight, so a server that falls behind is offered the same rate
 * and shows it as late answers and, once every connection waits, as bodies
 * written late. `connected`, when not NULL, is called with `context` once
 * every connection is set up, just before the start (a bench takes its
 * measures' starting points there, leaving the set-up out of them).
 *
 * For each body i: sent_ms[i], the wall-clock time (CLOCK_REALTIME, ms) its
 * request was written; answered_ms[i], when its answer was read or its
 * connection failed; status[i], the answer's HTTP status or 0 when its
 * connection failed first (the other connections carry on; a body not sent
 * because every connection failed also gets 0). Answers must carry
 * Content-Length (no chunked bodies) and at most 64 KiB. Each connection is
 * set up (connect and handshake) within 10 s. Returns 0; -1 when a connection
 * could not be set up, with why in `error`. */
int mw_h1_load_run(const char *ip, int port, const char *host_header, const char *path, const char *ca_file,
                   int connections, const uint8_t *bodies, const size_t *lengths, size_t count, const int64_t *due_ns,
                   void (*connected)(void *context), void *context,
                   double *sent_ms, double *answered_ms, int *status, char *error, size_t error_len);

#ifdef __cplusplus
}
#endif
#endif
