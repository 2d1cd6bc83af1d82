#ifndef MAILWAKE_MW_HTTP_SERVER_H
#define MAILWAKE_MW_HTTP_SERVER_H
/*
 * Plain-signature bridge for Mailwake's HTTP server, over one of two engines:
 * libmicrohttpd, or Mailwake's own epoll engine (OpenSSL, a strict HTTP/1.1
 * parser; see mw_http_epoll.c). Both keep the contract below.
 *
 * The shim owns every MHD object and every byte MHD sees. A complete request
 * (headers and body, or an early rejection) is handed to Swift through
 * `on_request` with its connection suspended; Swift answers exactly once with
 * mw_http_request_respond(), which copies the response and resumes the
 * connection. After that call the request pointer must not be touched again:
 * the shim frees it when MHD reports the request completed.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mw_http_server mw_http_server;
typedef struct mw_http_request mw_http_request;

/* A request is ready; its connection is suspended until it is answered. */
typedef void (*mw_http_request_cb)(void *ctx, mw_http_request *request);
/* A diagnostic from the engine (TLS handshake failures, resource limits). */
typedef void (*mw_http_log_cb)(void *ctx, const char *message);

enum {
    MW_HTTP_ENGINE_LIBMICROHTTPD = 0,
    MW_HTTP_ENGINE_EPOLL = 1
};

typedef struct mw_http_server_config {
    int engine;                        /* MW_HTTP_ENGINE_* */
    const char *bind_address;          /* "127.0.0.1", "0.0.0.0", "::1", "::" */
    uint16_t port;                     /* 0 picks a free port */
    const char *certificate_pem;       /* NULL for plain HTTP */
    const char *private_key_pem;       /* NULL for plain HTTP */
    unsigned int thread_pool_size;     /* >= 1 */
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit; /* 0: unlimited */
    size_t connection_memory_limit;    /* bounds request line + headers */
    unsigned int idle_timeout_seconds; /* 0: none */
    size_t max_body_bytes;
    int strict_client_parsing;         /* 1 strict, 0 default */
    mw_http_request_cb on_request;
    mw_http_log_cb on_log;
    void *ctx;
} mw_http_server_config;

/* Starts the daemon; NULL on failure with a reason in `error`. */
mw_http_server *mw_http_server_start(const mw_http_server_config *config, char *error, size_t error_len);
/* The bound port (useful with port 0). */
uint16_t mw_http_server_port(const mw_http_server *server);
/* Stops accepting new connections; established ones continue. */
void mw_http_server_quiesce(mw_http_server *server);
/* Stops the daemon and frees it. Every dispatched request must have been
 * answered; waits up to wait_ms for MHD to take the answered connections
 * back. Returns 1, or 0 when some were still suspended (the daemon is then
 * left running: stopping it would abort the process). */
int mw_http_server_stop(mw_http_server *server, unsigned int wait_ms);

/* Request accessors: valid from on_request until mw_http_request_respond. */
const char *mw_http_request_method(const mw_http_request *request);
const char *mw_http_request_target(const mw_http_request *request);   /* raw path and query as sent */
const char *mw_http_request_version(const mw_http_request *request);
const char *mw_http_request_client_address(const mw_http_request *request);
size_t mw_http_request_header_count(const mw_http_request *request);
const char *mw_http_request_header_name(const mw_http_request *request, size_t index);
const char *mw_http_request_header_value(const mw_http_request *request, size_t index);
const uint8_t *mw_http_request_body(const mw_http_request *request);
size_t mw_http_request_body_length(const mw_http_request *request);
/* 0, or the status the shim decided before the handler could run (413). */
unsigned int mw_http_request_rejection(const mw_http_request *request);

/* Answers the request (copies headers and body) and resumes its connection.
 * Returns 1, or -1 when the response could not be built (the connection is
 * then answered with a bare 500). */
int mw_http_request_respond(mw_http_request *request, unsigned int status,
                            const char *const *header_names, const char *const *header_values, size_t header_count,
                            const uint8_t *body, size_t body_length);

#ifdef __cplusplus
}
#endif
#endif
