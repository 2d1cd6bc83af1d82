/*
 * The libmicrohttpd engine: see include/mw_http_server.h for the contract.
 */
#include "mw_http_engines.h"

#include <arpa/inet.h>
#include <stdatomic.h>
#include <time.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

struct mw_http_server {
    int engine; /* MW_HTTP_ENGINE_LIBMICROHTTPD: first, for the dispatch */
    struct MHD_Daemon *daemon;
    mw_http_request_cb on_request;
    mw_http_log_cb on_log;
    void *ctx;
    size_t max_body_bytes;
    char *certificate_pem; /* copies kept until the daemon stops */
    char *private_key_pem;
    int quiesced;
    /* Connections suspended and not yet picked up again after their resume:
     * MHD aborts if it is stopped while any is left. */
    atomic_int suspended;
    /* Responses queued and not yet sent to the end: stopping closes their
     * connections, so the stop waits for them too. */
    atomic_int sending;
};

enum request_state { REQ_HEADERS = 0, REQ_BODY, REQ_DISPATCHED, REQ_DONE };

/* How much of an oversize chunked body is read and thrown away before the
 * connection is closed instead of answered. */
#define DISCARD_CAP(server) ((server)->max_body_bytes * 4 + 65536)

/* The most allocated for a body before its bytes arrive (a relay envelope is at most 8 KiB). */
#define BODY_PREALLOCATION_CAP ((size_t)16384)

struct mw_http_request {
    int engine; /* MW_HTTP_ENGINE_LIBMICROHTTPD: first, for the dispatch */
    mw_http_server *server;
    struct MHD_Connection *connection;
    enum request_state state;
    char *method;
    char *target;
    char *version;
    char client_address[64];
    size_t header_count;
    /* One allocation, starting at header_names, holds the header pointers, the header texts, the method and the
     * version: a request costs a few mallocs, not four per header (small frees interleaved with the body's large
     * allocation made glibc consolidate its fast bins on every request). */
    char **header_names;
    char **header_values;
    uint8_t *body;
    size_t body_length;
    size_t body_capacity;
    unsigned int rejection;
    size_t discarded;
    unsigned int status;
    struct MHD_Response *response;
    int sending; /* counted in server->sending until MHD reports the request completed */
};

/* Per-connection context: the raw URI of the request being parsed. MHD gives
 * the URI to the log callback before the access handler runs; keeping it on
 * the connection (not in a request) means nothing leaks when MHD rejects a
 * request before the handler sees it. */
struct connection_context {
    char *pending_target;
};

static char *dup_or_empty(const char *s) { return strdup(s ? s : ""); }

static void request_free(struct mw_http_request *r) {
    if (!r) return;
    free(r->header_names);
    free(r->target);
    free(r->body);
    if (r->response) MHD_destroy_response(r->response);
    free(r);
}

struct header_sizing {
    size_t count;
    size_t bytes;
};

static enum MHD_Result size_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct header_sizing *sizing = cls;
    sizing->count++;
    sizing->bytes += strlen(key ? key : "") + 1 + strlen(value ? value : "") + 1;
    return MHD_YES;
}

struct header_packing {
    struct mw_http_request *request;
    size_t capacity;
    char *next;
    char *end;
};

/* Copies `text` (NULL as "") to *next and advances it; NULL when it would pass `end`. */
static char *pack_text(char **next, char *end, const char *text) {
    size_t n = strlen(text ? text : "") + 1;
    if (n > (size_t)(end - *next)) return NULL;
    char *out = *next;
    memcpy(out, text ? text : "", n);
    *next += n;
    return out;
}

static enum MHD_Result pack_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct header_packing *packing = cls;
    struct mw_http_request *r = packing->request;
    /* The list cannot grow between the two passes (both run on the MHD thread, in one call of the access handler). */
    if (r->header_count >= packing->capacity) return MHD_NO;
    char *name = pack_text(&packing->next, packing->end, key);
    char *text = name ? pack_text(&packing->next, packing->end, value) : NULL;
    if (!text) return MHD_NO;
    r->header_names[r->header_count] = name;
    r->header_values[r->header_count] = text;
    r->header_count++;
    return MHD_YES;
}

/* Copies the request's headers, method and version into one allocation; 0 when out of memory. */
static int collect_headers(struct mw_http_request *r, const char *method, const char *version) {
    struct header_sizing sizing = {0, 0};
    if (MHD_get_connection_values(r->connection, MHD_HEADER_KIND, size_header, &sizing) < 0) return 0;
    size_t slots = sizing.count ? sizing.count : 1;
    size_t pointers = 2 * slots * sizeof(char *);
    size_t texts = sizing.bytes + strlen(method ? method : "") + 1 + strlen(version ? version : "") + 1;
    char *block = malloc(pointers + texts);
    if (!block) return 0;
    r->header_names = (char **)block;
    r->header_values = r->header_names + slots;
    struct header_packing packing = {r, sizing.count, block + pointers, block + pointers + texts};
    r->method = pack_text(&packing.next, packing.end, method);
    r->version = pack_text(&packing.next, packing.end, version);
    if (!r->method || !r->version) return 0;
    if (MHD_get_connection_values(r->connection, MHD_HEADER_KIND, pack_header, &packing) < 0) return 0;
    /* Fewer headers than counted if the second pass stopped early: that request is refused, never half-copied. */
    return r->header_count == sizing.count;
}

static void format_client_address(struct MHD_Connection *c, char *out, size_t len) {
    out[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)len);
    } else if (sa->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)len);
    }
}

static void dispatch(struct mw_http_request *r) {
    r->state = REQ_DISPATCHED;
    atomic_fetch_add(&r->server->suspended, 1);
    MHD_suspend_connection(r->connection);
    r->server->on_request(r->server->ctx, r);
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                 const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls) {
    (void)url;
    mw_http_server *server = cls;
    struct mw_http_request *r = *con_cls;
    if (!r) {
        /* First call for this request: headers are complete. */
        r = calloc(1, sizeof *r);
        if (!r) return MHD_NO;
        *con_cls = r;
        r->server = server;
        r->connection = connection;
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        struct connection_context *cc = info ? (struct connection_context *)info->socket_context : NULL;
        if (cc && cc->pending_target) {
            r->target = cc->pending_target;
            cc->pending_target = NULL;
        } else {
            r->target = dup_or_empty(url);
        }
        if (!r->target || !collect_headers(r, method, version)) return MHD_NO;
        format_client_address(connection, r->client_address, sizeof r->client_address);
        const char *cl = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl) {
            char *end = NULL;
            unsigned long long n = strtoull(cl, &end, 10);
            int declared = end && *end == 0;
            if (declared && n > server->max_body_bytes) {
                r->rejection = 413;
                dispatch(r);
                return MHD_YES;
            }
            /* A declared length within the limit: the body's buffer is allocated once, at its size, up to
             * BODY_PREALLOCATION_CAP. Beyond that it grows as bytes arrive, so a client that declares a large body
             * and sends none cannot make the server hold more than this per connection. */
            if (declared && n > 0) {
                size_t first = n < BODY_PREALLOCATION_CAP ? (size_t)n : BODY_PREALLOCATION_CAP;
                r->body = malloc(first);
                if (!r->body) return MHD_NO;
                r->body_capacity = first;
            }
        }
        r->state = REQ_BODY;
        return MHD_YES;
    }
    switch (r->state) {
    case REQ_HEADERS:
    case REQ_BODY:
        if (*upload_data_size > 0) {
            size_t n = *upload_data_size;
            *upload_data_size = 0;
            if (r->rejection) {
                /* Already over the limit: MHD cannot answer in the middle of a
                 * chunked body, so discard until it ends (then answer 413), but
                 * close the connection if the client keeps streaming far past it. */
                r->discarded += n;
                return r->discarded > DISCARD_CAP(server) ? MHD_NO : MHD_YES;
            }
            if (r->body_length + n > server->max_body_bytes) {
                r->rejection = 413;
                r->discarded = r->body_length + n;
                free(r->body);
                r->body = NULL;
                r->body_length = r->body_capacity = 0;
                return MHD_YES;
            }
            if (r->body_length + n > r->body_capacity) {
                size_t cap = r->body_capacity ? r->body_capacity : 1024;
                while (cap < r->body_length + n) cap *= 2;
                if (cap > server->max_body_bytes) cap = server->max_body_bytes;
                uint8_t *grown = realloc(r->body, cap);
                if (!grown) return MHD_NO;
                r->body = grown;
                r->body_capacity = cap;
            }
            memcpy(r->body + r->body_length, upload_data, n);
            r->body_length += n;
            return MHD_YES;
        }
        dispatch(r);
        return MHD_YES;
    case REQ_DISPATCHED:
        /* Resumed: Swift has answered. Any unread upload is discarded. */
        *upload_data_size = 0;
        if (!r->response) return MHD_YES;
        atomic_fetch_sub(&server->suspended, 1);
        {
            enum MHD_Result ok = MHD_queue_response(connection, r->status, r->response);
            MHD_destroy_response(r->response);
            r->response = NULL;
            r->state = REQ_DONE;
            if (ok == MHD_YES) {
                r->sending = 1;
                atomic_fetch_add(&server->sending, 1);
            }
            return ok;
        }
    case REQ_DONE:
        *upload_data_size = 0;
        return MHD_YES;
    }
    return MHD_NO;
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls, enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)connection;
    (void)toe;
    struct mw_http_request *r = *con_cls;
    /* Sent to the end, or the connection ended: either way nothing is left to send. */
    if (r && r->sending) atomic_fetch_sub(&r->server->sending, 1);
    /* Resumed, but the client had hung up: MHD closed the connection without
     * calling on_access again, so the resume is picked up here. (A connection
     * still suspended is never completed: MHD skips it until resumed.) */
    if (r && r->state == REQ_DISPATCHED) atomic_fetch_sub(&r->server->suspended, 1);
    request_free(*con_cls);
    *con_cls = NULL;
}

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *connection) {
    (void)cls;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct connection_context *cc = info ? (struct connection_context *)info->socket_context : NULL;
    if (cc) {
        free(cc->pending_target);
        cc->pending_target = dup_or_empty(uri);
    }
    return NULL;
}

static void on_connection(void *cls, struct MHD_Connection *connection, void **socket_context, enum MHD_ConnectionNotificationCode toe) {
    (void)cls;
    (void)connection;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        *socket_context = calloc(1, sizeof(struct connection_context));
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        struct connection_context *cc = *socket_context;
        if (cc) free(cc->pending_target);
        free(cc);
        *socket_context = NULL;
    }
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap) {
    mw_http_server *server = cls;
    if (!server || !server->on_log) return;
    char message[512];
    vsnprintf(message, sizeof message, fmt, ap);
    size_t n = strlen(message);
    while (n > 0 && (message[n - 1] == '\n' || message[n - 1] == '\r')) message[--n] = 0;
    server->on_log(server->ctx, message);
}

static void set_error(char *error, size_t len, const char *message) {
    if (error && len) snprintf(error, len, "%s", message);
}

mw_http_server *mw_mhd_server_start(const mw_http_server_config *c, char *error, size_t error_len) {
    if (!c || !c->on_request || !c->bind_address) {
        set_error(error, error_len, "incomplete server configuration");
        return NULL;
    }
    mw_http_server *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->on_request = c->on_request;
    s->on_log = c->on_log;
    s->ctx = c->ctx;
    s->max_body_bytes = c->max_body_bytes;

    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
    if (inet_pton(AF_INET, c->bind_address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(c->port);
    } else if (inet_pton(AF_INET6, c->bind_address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(c->port);
        flags |= MHD_USE_IPv6;
    } else {
        set_error(error, error_len, "bind address is not an IPv4 or IPv6 literal");
        free(s);
        return NULL;
    }
    int tls = c->certificate_pem && c->private_key_pem;
    if (tls) {
        flags |= MHD_USE_TLS;
        s->certificate_pem = strdup(c->certificate_pem);
        s->private_key_pem = strdup(c->private_key_pem);
        if (!s->certificate_pem || !s->private_key_pem) goto fail;
    }
    struct MHD_OptionItem options[20];
    int n = 0;
    /* The logger must come first, or MHD logs early messages on stderr itself. */
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_log, s};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, &addr};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, c->thread_pool_size ? c->thread_pool_size : 1, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, c->connection_limit, NULL};
    if (c->per_ip_connection_limit)
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, c->per_ip_connection_limit, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)c->connection_memory_limit, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, c->idle_timeout_seconds, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_STRICT_FOR_CLIENT, c->strict_client_parsing, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_uri, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, NULL};
    if (tls) {
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, s->certificate_pem};
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, s->private_key_pem};
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"};
    }
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};

    s->daemon = MHD_start_daemon(flags, c->port, NULL, NULL, on_access, s, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
    if (!s->daemon) {
        set_error(error, error_len, tls ? "could not start the HTTPS daemon (address in use, or a bad certificate or key)"
                                        : "could not start the HTTP daemon (address in use?)");
        goto fail;
    }
    return s;
fail:
    free(s->certificate_pem);
    free(s->private_key_pem);
    free(s);
    return NULL;
}

uint16_t mw_mhd_server_port(const mw_http_server *s) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

void mw_mhd_server_quiesce(mw_http_server *s) {
    if (!s || s->quiesced) return;
    s->quiesced = 1;
    MHD_socket fd = MHD_quiesce_daemon(s->daemon);
    if (fd != MHD_INVALID_SOCKET) close(fd);
}

int mw_mhd_server_stop(mw_http_server *s, unsigned int wait_ms) {
    if (!s) return 1;
    /* Every dispatched request has been answered; wait until MHD has picked
     * each resumed connection up again, since stopping with one still marked
     * suspended aborts the process. */
    struct timespec pause = {0, 1000000};
    unsigned int waited = 0;
    for (; atomic_load(&s->suspended) > 0 && waited < wait_ms; waited++) nanosleep(&pause, NULL);
    if (atomic_load(&s->suspended) > 0) return 0; /* leave the daemon running rather than abort */
    /* Stopping closes every connection: first let the answers already queued
     * (the last ones of the drain, the 503s to stragglers) reach their clients,
     * within what is left of the wait. */
    for (; atomic_load(&s->sending) > 0 && waited < wait_ms; waited++) nanosleep(&pause, NULL);
    MHD_stop_daemon(s->daemon);
    if (s->certificate_pem) memset(s->certificate_pem, 0, strlen(s->certificate_pem));
    if (s->private_key_pem) memset(s->private_key_pem, 0, strlen(s->private_key_pem));
    free(s->certificate_pem);
    free(s->private_key_pem);
    free(s);
    return 1;
}

const char *mw_mhd_request_method(const mw_http_request *r) { return r->method; }
const char *mw_mhd_request_target(const mw_http_request *r) { return r->target; }
const char *mw_mhd_request_version(const mw_http_request *r) { return r->version; }
const char *mw_mhd_request_client_address(const mw_http_request *r) { return r->client_address; }
size_t mw_mhd_request_header_count(const mw_http_request *r) { return r->header_count; }
const char *mw_mhd_request_header_name(const mw_http_request *r, size_t i) { return i < r->header_count ? r->header_names[i] : NULL; }
const char *mw_mhd_request_header_value(const mw_http_request *r, size_t i) { return i < r->header_count ? r->header_values[i] : NULL; }
const uint8_t *mw_mhd_request_body(const mw_http_request *r) { return r->body; }
size_t mw_mhd_request_body_length(const mw_http_request *r) { return r->body_length; }
unsigned int mw_mhd_request_rejection(const mw_http_request *r) { return r->rejection; }

int mw_mhd_request_respond(mw_http_request *r, unsigned int status, const char *const *names, const char *const *values,
                            size_t count, const uint8_t *body, size_t body_length) {
    int rc = 1;
    struct MHD_Response *response = MHD_create_response_from_buffer(body_length, (void *)(body ? body : (const uint8_t *)""), MHD_RESPMEM_MUST_COPY);
    if (response) {
        for (size_t i = 0; i < count; i++) {
            if (MHD_add_response_header(response, names[i], values[i]) != MHD_YES) {
                MHD_destroy_response(response);
                response = NULL;
                break;
            }
        }
    }
    if (!response) {
        rc = -1;
        status = 500;
        response = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    }
    r->status = status;
    r->response = response;
    /* After this call the MHD thread owns the request again. */
    MHD_resume_connection(r->connection);
    return rc;
}
