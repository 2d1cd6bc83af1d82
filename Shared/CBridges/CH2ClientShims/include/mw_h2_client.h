#ifndef MAILWAKE_MW_H2_CLIENT_H
#define MAILWAKE_MW_H2_CLIENT_H
/*
 * An HTTP/2-over-TLS client for one origin (OpenSSL + libnghttp2), with
 * plain signatures for Swift: the relay's APNs transport.
 *
 * One thread per client runs every connection of the client: a poll loop
 * over the sockets and a wake eventfd, TLS, the nghttp2 sessions and the
 * requests' deadlines. Requests are handed over with mw_h2_client_submit()
 * (any thread; one lock and, for the first of a batch, one eventfd write)
 * and answered through `on_done` on the client's thread.
 *
 * Connections are opened on demand, one at a time, up to `connections`;
 * each carries up to `max_streams` requests at once (fewer when the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS is lower; nghttp2 holds the excess). A
 * request whose HEADERS never left, or that the server refused without
 * processing it (REFUSED_STREAM, or above a GOAWAY's last stream), is sent
 * again on another connection, up to twice; only then does it fail with
 * MW_H2C_STREAM_REFUSED.
 *
 * After mw_h2_client_stop() returns, every submitted request has been
 * answered (MW_H2C_SHUTDOWN for those left) and no callback runs any more;
 * mw_h2_client_free() releases the rest.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mw_h2_client mw_h2_client;

/* Why a request failed; MW_H2C_OK when a complete response arrived. */
enum {
    MW_H2C_OK = 0,
    MW_H2C_CONNECT = 1,            /* no TCP connection (resolution, refusal, connect timeout) */
    MW_H2C_TLS = 2,                /* handshake or certificate verification failed */
    MW_H2C_TIMEOUT = 3,            /* the request's timeout passed */
    MW_H2C_TOO_LARGE = 4,          /* the response's body or header block exceeded its limit */
    MW_H2C_SHUTDOWN = 5,           /* the client stopped first */
    MW_H2C_STREAM_REFUSED = 6,     /* refused without processing, also after the retries */
    MW_H2C_CONNECTION_CLOSED = 7,  /* the connection ended before any response byte */
    MW_H2C_INCOMPLETE = 8,         /* the response started, then its stream or connection ended */
    MW_H2C_PROTOCOL = 9,           /* HTTP/2 violation, or the server reset the stream (not REFUSED_STREAM) */
    MW_H2C_CANCELLED = 10,         /* mw_h2_client_cancel() */
    MW_H2C_OTHER = 11              /* out of memory and the like */
};

/* One request header; names in lower case (HTTP/2). */
typedef struct mw_h2c_header {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
} mw_h2c_header;

/* What a request came to; pointers valid only during `on_done`. */
typedef struct mw_h2c_result {
    int error;                     /* MW_H2C_* */
    unsigned int status;           /* with MW_H2C_OK: the final status, 200..599 */
    const uint8_t *body;
    size_t body_len;
    const char *headers;           /* `header_count` pairs "name\0value\0", names lower case */
    size_t headers_len;
    unsigned int header_count;
    uint64_t connection_id;        /* 1, 2, ... in the order the client opened them; 0 when none */
    int new_connection;            /* 1: the first request answered on its connection */
    const char *message;           /* NUL-terminated explanation for errors (never request data); "" with MW_H2C_OK */
} mw_h2c_result;

/* A request's end, on the client's thread. `request_ctx` is what
 * mw_h2_client_submit() was given; called exactly once per accepted request. */
typedef void (*mw_h2c_done_cb)(void *ctx, void *request_ctx, const mw_h2c_result *result);

/* Diagnostics: level 0 debug, 1 info, 2 warning; connection_id 0 when none. */
typedef void (*mw_h2c_log_cb)(void *ctx, int level, uint64_t connection_id, const char *message);

typedef struct mw_h2_client_config {
    const char *host;              /* DNS name or IP literal (certificate checked against it) */
    uint16_t port;
    const char *ca_file;           /* PEM bundle trusted alone; NULL: OpenSSL's default paths */
    unsigned int connections;      /* >= 1 */
    unsigned int max_streams;      /* >= 1, per connection */
    unsigned int connect_timeout_ms;  /* TCP and TLS, per connection attempt */
    size_t max_header_bytes;       /* header block, as names and values */
    const char *thread_name;       /* at most 15 bytes are used */
    mw_h2c_done_cb on_done;
    mw_h2c_log_cb on_log;          /* may be NULL */
    void *ctx;
} mw_h2_client_config;

/* Creates the TLS context (loading the CA file once) and starts the thread.
 * NULL on failure with a reason in `error`. Connects nothing yet. */
mw_h2_client *mw_h2_client_start(const mw_h2_client_config *config, char *error, size_t error_len);

/* Queues one request: `method` and `path` as sent (:method, :path), :scheme
 * https and :authority from the configuration, then `headers`, then `body`
 * (NULL and 0: no body; END_STREAM on the HEADERS). Everything is copied
 * before this returns. A response body over `max_response_bytes` fails the
 * request with MW_H2C_TOO_LARGE. `timeout_ms` counts from now. Returns 0, or
 * -1 when the client is stopping (nothing was queued and `on_done` will not
 * run) or out of memory. */
int mw_h2_client_submit(mw_h2_client *client, uint64_t id, const char *method, size_t method_len, const char *path,
                        size_t path_len, const mw_h2c_header *headers, size_t header_count, const uint8_t *body,
                        size_t body_len, size_t max_response_bytes, uint32_t timeout_ms, void *request_ctx);

/* Answers request `id` with MW_H2C_CANCELLED (resetting its stream) unless
 * it has already been answered. */
void mw_h2_client_cancel(mw_h2_client *client, uint64_t id);

/* Connections opened since start, and open now (read from any thread). */
uint64_t mw_h2_client_connections_opened(const mw_h2_client *client);
uint64_t mw_h2_client_connections_open(const mw_h2_client *client);

/* Answers what is left with MW_H2C_SHUTDOWN, closes every connection and
 * joins the thread; later submissions return -1. Idempotent: concurrent
 * callers all return once the thread has ended. Not from `on_done`. */
void mw_h2_client_stop(mw_h2_client *client);

/* Stops the client (as mw_h2_client_stop) and frees it. Nothing may use the
 * client afterwards, and no mw_h2_client_submit or mw_h2_client_cancel call
 * may still be running: they wake the client's thread after unlocking, even
 * for a request already answered. */
void mw_h2_client_free(mw_h2_client *client);

#ifdef __cplusplus
}
#endif
#endif
