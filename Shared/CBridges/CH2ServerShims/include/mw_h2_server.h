#ifndef MAILWAKE_MW_H2_SERVER_H
#define MAILWAKE_MW_H2_SERVER_H
/*
 * A small HTTP/2-over-TLS server (OpenSSL + libnghttp2) with plain
 * signatures for Swift: the transport of the APNs simulator.
 *
 * The shim owns the listener, the TLS contexts, every connection and every
 * byte nghttp2 sees. One accept thread; one thread per connection, which runs
 * TLS, the nghttp2 session and the connection's queue of delayed responses
 * (so a slow response never holds up another stream of the connection).
 *
 * A complete request (headers and body) is handed to `on_request` on its
 * connection's thread, as a flat `mw_h2_request` whose pointers are valid
 * only during the call. The callback fills the `mw_h2_response` it is given
 * (status, optional apns-id and body through the setters below, a delay and a
 * GOAWAY flag) and returns; the shim copies nothing back from Swift after
 * that. Callbacks run concurrently on different connection threads.
 *
 * After mw_h2_server_stop() returns no callback runs any more and every
 * resource has been released.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mw_h2_server mw_h2_server;

/* One complete request. String pointers are not NUL-terminated; a header the
 * request did not carry has a NULL pointer and length 0. When a header is
 * repeated, the first occurrence is kept. */
typedef struct mw_h2_request {
    const char *method;
    size_t method_len;
    const char *path;                 /* :path as sent, query included */
    size_t path_len;
    const char *authorization;
    size_t authorization_len;
    const char *apns_topic;
    size_t apns_topic_len;
    const char *apns_push_type;
    size_t apns_push_type_len;
    const char *apns_priority;
    size_t apns_priority_len;
    const char *apns_id;
    size_t apns_id_len;
    const char *apns_expiration;
    size_t apns_expiration_len;
    const char *apns_collapse_id;
    size_t apns_collapse_id_len;
    const uint8_t *body;              /* the body, up to max_body_bytes of it */
    size_t body_len;                  /* bytes at `body` */
    size_t body_received;             /* bytes received: more than body_len when cut */
    uint64_t connection_id;           /* 1, 2, ... in accept order */
    int32_t stream_id;
    uint32_t connection_requests;     /* requests dispatched on this connection, this one included */
} mw_h2_request;

/* What the callback answers. The shim initialises it to status 200, no
 * apns-id, no body, no delay, no GOAWAY; the callback changes the plain
 * fields directly and the owned ones through the setters. */
typedef struct mw_h2_response {
    unsigned int status;              /* 200..599 */
    unsigned int delay_ms;            /* send the response this much later (0: now) */
    int goaway;                       /* 1: send GOAWAY naming this stream (or a higher one
                                         already answered) as the last; streams above it are
                                         refused (REFUSED_STREAM), those below are finished,
                                         then the connection closes */
    /* Owned by the shim; set with the functions below. */
    char *apns_id;
    size_t apns_id_len;
    uint8_t *body;                    /* sent with content-type: application/json */
    size_t body_len;
} mw_h2_response;

/* Copies `len` bytes as the response's apns-id header. 0, or -1 without memory. */
int mw_h2_response_set_apns_id(mw_h2_response *response, const char *value, size_t len);
/* Copies `len` bytes as the response body. 0, or -1 without memory. */
int mw_h2_response_set_body(mw_h2_response *response, const uint8_t *bytes, size_t len);

typedef void (*mw_h2_request_cb)(void *ctx, const mw_h2_request *request, mw_h2_response *response);

/* Diagnostics: level 0 debug, 1 info, 2 warning; connection_id 0 when none. */
typedef void (*mw_h2_log_cb)(void *ctx, int level, uint64_t connection_id, const char *message);

typedef struct mw_h2_server_config {
    const char *host;                 /* IPv4 or IPv6 literal */
    uint16_t port;                    /* 0 picks a free port */
    const char *certificate_file;     /* PEM chain */
    const char *private_key_file;     /* PEM */
    uint32_t max_concurrent_streams;  /* SETTINGS_MAX_CONCURRENT_STREAMS, >= 1 */
    size_t max_body_bytes;            /* kept per request; more is counted and dropped */
    int require_alpn;                 /* 1: refuse a TLS client that did not negotiate h2 through ALPN;
                                         0: also serve one that offered no ALPN at all (HTTP/2 by prior
                                         knowledge, which Apple's servers accept); a client offering
                                         only other protocols is refused either way */
    mw_h2_request_cb on_request;
    mw_h2_log_cb on_log;              /* may be NULL */
    void *ctx;
} mw_h2_server_config;

/* Binds, listens and starts the accept thread. NULL on failure with a reason
 * in `error`. */
mw_h2_server *mw_h2_server_start(const mw_h2_server_config *config, char *error, size_t error_len);

/* The bound port (useful with port 0). */
uint16_t mw_h2_server_port(const mw_h2_server *server);

/* SETTINGS_MAX_CONCURRENT_STREAMS for connections accepted from now on. */
void mw_h2_server_set_max_concurrent_streams(mw_h2_server *server, uint32_t value);

/* Asks connection `connection_id` (0: every open connection) to send GOAWAY
 * naming the last stream it has received, finish those streams and close.
 * Returns how many connections were asked. */
unsigned int mw_h2_server_goaway(mw_h2_server *server, uint64_t connection_id);

/* Connections accepted since start, and connections open now. */
uint64_t mw_h2_server_connections_accepted(const mw_h2_server *server);
uint64_t mw_h2_server_connections_open(const mw_h2_server *server);

/* Closes the listener and every connection (pending responses are dropped),
 * waits for every thread, and frees the server. */
void mw_h2_server_stop(mw_h2_server *server);

#ifdef __cplusplus
}
#endif
#endif
