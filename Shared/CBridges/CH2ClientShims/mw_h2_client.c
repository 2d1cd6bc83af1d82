/*
 * HTTP/2 over TLS client for one origin: see include/mw_h2_client.h.
 *
 * Ownership: everything below `struct mw_h2_client`'s lock (the inbox of new
 * requests and cancellations, the stop flag) is shared with submitting
 * threads; the rest (connections, sessions, queued and in-flight requests)
 * belongs to the client's thread alone.
 *
 * A request is in exactly one place at a time: the inbox, the client's
 * queue (`waiting`, not yet on a connection), or a connection's list (handed
 * to its nghttp2 session as a stream). It is answered and freed exactly once,
 * by `finish`, after being unlinked from where it was; its stream's user data
 * is cleared first, so nghttp2 callbacks that come later find nothing.
 */
#define _GNU_SOURCE
#include "mw_h2_client.h"
#include "mw_h2_tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#define TICK_MS 100             /* deadlines are checked this often while requests are open */
#define MAX_RETRIES 2           /* sends again of a request refused unprocessed */
#define WINDOW (1 << 20)        /* receive window per stream and for the connection */

enum conn_state { C_CONNECTING, C_HANDSHAKING, C_READY, C_DRAINING };

struct h2c_conn;

struct h2c_request {
    uint64_t id;
    void *ctx;
    uint64_t deadline_ms;
    size_t max_response_bytes;
    struct h2c_conn *conn;       /* NULL while queued */
    int32_t stream_id;
    int retries;
    int headers_sent;
    int complete;                /* END_STREAM of the final response received */
    int response_started;
    int too_large;
    int final_headers;           /* the HEADERS being received carry the final status */
    unsigned int status;
    /* the request, in the same allocation */
    nghttp2_nv *nv;
    size_t nv_len;
    const uint8_t *body;
    size_t body_len, body_off;
    /* the response */
    uint8_t *resp_body;
    size_t resp_len, resp_cap;
    char *resp_headers;
    size_t resp_headers_len, resp_headers_cap;
    unsigned int header_count;
    struct h2c_request *prev, *next;
};

struct req_list {
    struct h2c_request *head, *tail;
    size_t count;
};

struct h2c_conn {
    mw_h2_client *client;
    uint64_t id;
    enum conn_state state;
    int fd;
    SSL *ssl;
    nghttp2_session *session;
    struct addrinfo *addresses, *next_address;
    uint64_t connect_deadline_ms;
    uint64_t answered;
    int read_wants_write;
    int failed;
    struct req_list streams;
    mw_h2_out out;
    struct h2c_conn *next;
};

struct mw_h2_client {
    /* immutable after start */
    char *host;
    char *authority;
    uint16_t port;
    unsigned int max_connections;
    unsigned int max_streams;
    unsigned int connect_timeout_ms;
    size_t max_header_bytes;
    int host_is_ip;
    char thread_name[16];
    SSL_CTX *tls;
    mw_h2c_done_cb on_done;
    mw_h2c_log_cb on_log;
    void *ctx;
    int wake_fd;
    pthread_t thread;
    atomic_uint_fast64_t opened;
    atomic_uint_fast64_t open;
    /* shared, under lock */
    pthread_mutex_t lock;
    pthread_cond_t stopped_cond;
    int stopping;
    int stopped;                 /* the thread has been joined */
    struct req_list inbox;
    uint64_t *cancels;
    size_t cancel_count, cancel_cap;
    /* the client's thread only */
    struct req_list waiting;
    struct h2c_conn *conns;
    unsigned int conn_count;
    uint64_t next_conn_id;
    char last_failure[256];
    int last_failure_code;
    int requeued;                /* requests went back to `waiting` since the last `assign` */
};

/* MARK: helpers */


__attribute__((format(printf, 4, 5)))
static void client_log(mw_h2_client *c, int level, uint64_t connection, const char *fmt, ...) {
    if (!c->on_log) return;
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    c->on_log(c->ctx, level, connection, message);
}


static void list_append(struct req_list *l, struct h2c_request *r) {
    r->next = NULL;
    r->prev = l->tail;
    if (l->tail) l->tail->next = r; else l->head = r;
    l->tail = r;
    l->count++;
}

static void list_prepend(struct req_list *l, struct h2c_request *r) {
    r->prev = NULL;
    r->next = l->head;
    if (l->head) l->head->prev = r; else l->tail = r;
    l->head = r;
    l->count++;
}

static void list_remove(struct req_list *l, struct h2c_request *r) {
    if (r->prev) r->prev->next = r->next; else l->head = r->next;
    if (r->next) r->next->prev = r->prev; else l->tail = r->prev;
    r->prev = r->next = NULL;
    l->count--;
}

/* Moves every request of `from` to the end of `to`, in order. */
static void list_splice(struct req_list *to, struct req_list *from) {
    if (!from->head) return;
    if (to->tail) {
        to->tail->next = from->head;
        from->head->prev = to->tail;
    } else {
        to->head = from->head;
    }
    to->tail = from->tail;
    to->count += from->count;
    from->head = from->tail = NULL;
    from->count = 0;
}

static int grow(void **buffer, size_t *cap, size_t needed, size_t first) {
    if (needed <= *cap) return 0;
    size_t n = *cap ? *cap : first;
    while (n < needed) n *= 2;
    void *grown = realloc(*buffer, n);
    if (!grown) return -1;
    *buffer = grown;
    *cap = n;
    return 0;
}

/* MARK: answering */

/* Answers `r` and frees it. `r` must already be out of every list. */
static void finish(mw_h2_client *c, struct h2c_request *r, int error, const char *message, uint64_t connection_id,
                   int new_connection) {
    mw_h2c_result result = {
        .error = error,
        .status = error == MW_H2C_OK ? r->status : 0,
        .body = r->resp_body,
        .body_len = r->resp_len,
        .headers = r->resp_headers,
        .headers_len = r->resp_headers_len,
        .header_count = r->header_count,
        .connection_id = connection_id,
        .new_connection = new_connection,
        .message = message ? message : "",
    };
    c->on_done(c->ctx, r->ctx, &result);
    free(r->resp_body);
    free(r->resp_headers);
    free(r);
}

/* Takes `r` off its connection: the stream keeps going without it. */
static void detach(struct h2c_conn *conn, struct h2c_request *r) {
    list_remove(&conn->streams, r);
    if (conn->session && r->stream_id > 0) nghttp2_session_set_stream_user_data(conn->session, r->stream_id, NULL);
    r->conn = NULL;
}

/* Puts a request that never reached the server back at the head of the
 * queue, or fails it once it has been sent again too often. */
static void requeue(mw_h2_client *c, struct h2c_request *r, const char *why, uint64_t connection_id) {
    if (r->headers_sent && ++r->retries > MAX_RETRIES) {
        finish(c, r, MW_H2C_STREAM_REFUSED, why, connection_id, 0);
        return;
    }
    r->stream_id = 0;
    r->headers_sent = r->complete = r->response_started = r->too_large = r->final_headers = 0;
    r->status = 0;
    r->body_off = r->resp_len = r->resp_headers_len = 0;
    r->header_count = 0;
    list_prepend(&c->waiting, r);
    c->requeued = 1;
}

/* MARK: nghttp2 callbacks */

static ssize_t read_body(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length, uint32_t *flags,
                         nghttp2_data_source *source, void *user_data) {
    (void)source; (void)user_data;
    /* Through the stream's user data, not `source`: a request cancelled or
     * timed out is detached (user data cleared) and freed while its stream
     * may still be queued; nghttp2 then resets the stream. */
    struct h2c_request *r = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!r) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    size_t n = r->body_len - r->body_off;
    if (n > length) n = length;
    if (n) memcpy(buf, r->body + r->body_off, n);
    r->body_off += n;
    if (r->body_off == r->body_len) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user_data) {
    (void)flags;
    struct h2c_conn *conn = user_data;
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    struct h2c_request *r = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (!r || r->too_large) return 0;
    r->response_started = 1;
    if (namelen == 7 && memcmp(name, ":status", 7) == 0) {
        unsigned int status = 0;
        for (size_t i = 0; i < valuelen && i < 3; i++) {
            if (value[i] < '0' || value[i] > '9') return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
            status = status * 10 + (unsigned int)(value[i] - '0');
        }
        if (valuelen != 3 || status < 100) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
        r->final_headers = status >= 200;
        if (r->final_headers) r->status = status;
        return 0;
    }
    if (!r->final_headers || name[0] == ':') return 0; /* informational responses' fields and other pseudo-headers */
    size_t needed = r->resp_headers_len + namelen + valuelen + 2;
    if (needed > conn->client->max_header_bytes) {
        r->too_large = 1;
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id, NGHTTP2_CANCEL);
        return 0;
    }
    if (grow((void **)&r->resp_headers, &r->resp_headers_cap, needed, 256) != 0) return NGHTTP2_ERR_CALLBACK_FAILURE;
    memcpy(r->resp_headers + r->resp_headers_len, name, namelen);
    r->resp_headers[r->resp_headers_len + namelen] = 0;
    memcpy(r->resp_headers + r->resp_headers_len + namelen + 1, value, valuelen);
    r->resp_headers[needed - 1] = 0;
    r->resp_headers_len = needed;
    r->header_count++;
    return 0;
}

static int on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data, size_t len,
                         void *user_data) {
    (void)flags;
    (void)user_data;
    struct h2c_request *r = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!r || r->too_large) return 0;
    r->response_started = 1;
    if (r->resp_len + len > r->max_response_bytes) {
        r->too_large = 1;
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
        return 0;
    }
    if (grow((void **)&r->resp_body, &r->resp_cap, r->resp_len + len, 512) != 0) return NGHTTP2_ERR_CALLBACK_FAILURE;
    memcpy(r->resp_body + r->resp_len, data, len);
    r->resp_len += len;
    return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user_data) {
    struct h2c_conn *conn = user_data;
    if (frame->hd.type == NGHTTP2_GOAWAY) {
        if (conn->state == C_READY) {
            client_log(conn->client, 1, conn->id, "the server sent GOAWAY (error %u, last stream %d): no new requests here",
                       frame->goaway.error_code, frame->goaway.last_stream_id);
        }
        conn->state = C_DRAINING;
        return 0;
    }
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
        struct h2c_request *r = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
        if (r && r->status >= 200) r->complete = 1;
    }
    return 0;
}

static int on_frame_send(nghttp2_session *session, const nghttp2_frame *frame, void *user_data) {
    (void)user_data;
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    struct h2c_request *r = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (r) r->headers_sent = 1;
    return 0;
}

/* HEADERS that could not go out: the server never saw the request. When
 * the connection is going away (a GOAWAY arrived first, stream ids ran out)
 * it goes to another connection; otherwise the request itself cannot be sent
 * (a header block too large to encode, say), and fails. */
static int on_frame_not_send(nghttp2_session *session, const nghttp2_frame *frame, int lib_error_code, void *user_data) {
    (void)session;
    struct h2c_conn *conn = user_data;
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    for (struct h2c_request *r = conn->streams.head; r; r = r->next) {
        if (r->stream_id != frame->hd.stream_id) continue;
        detach(conn, r);
        r->headers_sent = 0;
        if (lib_error_code == NGHTTP2_ERR_START_STREAM_NOT_ALLOWED || lib_error_code == NGHTTP2_ERR_SESSION_CLOSING ||
            lib_error_code == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE) {
            conn->state = C_DRAINING;
            requeue(conn->client, r, "", conn->id);
        } else {
            char why[128];
            snprintf(why, sizeof why, "the request could not be sent: %s", nghttp2_strerror(lib_error_code));
            finish(conn->client, r, MW_H2C_OTHER, why, conn->id, 0);
        }
        break;
    }
    return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user_data) {
    struct h2c_conn *conn = user_data;
    struct h2c_request *r = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!r) return 0;
    mw_h2_client *c = conn->client;
    detach(conn, r);
    char why[96];
    if (r->complete) {
        conn->answered++;
        finish(c, r, MW_H2C_OK, NULL, conn->id, conn->answered == 1);
    } else if (r->too_large) {
        finish(c, r, MW_H2C_TOO_LARGE, "the response exceeded its size limit", conn->id, 0);
    } else if (!r->headers_sent || (error_code == NGHTTP2_REFUSED_STREAM && !r->response_started)) {
        requeue(c, r, "the server refused the stream (REFUSED_STREAM) every time", conn->id);
    } else if (r->response_started) {
        snprintf(why, sizeof why, "the stream ended mid-response (HTTP/2 error %u)", error_code);
        finish(c, r, MW_H2C_INCOMPLETE, why, conn->id, 0);
    } else {
        snprintf(why, sizeof why, "the server reset the stream (HTTP/2 error %u)", error_code);
        finish(c, r, MW_H2C_PROTOCOL, why, conn->id, 0);
    }
    return 0;
}

/* MARK: connections */

/* Writes what nghttp2 has ready. 0 when everything went out or the socket
 * is full (the rest stays in `out`), -1 when the connection failed. */
static int flush(struct h2c_conn *conn) {
    char error[320];
    if (mw_h2_flush(conn->session, conn->ssl, &conn->out, error, sizeof error) == 0) return 0;
    client_log(conn->client, 1, conn->id, "%s", error);
    return -1;
}

/* Reads and processes what has arrived. 0 to go on, -1 when the connection ended. */
static int receive(struct h2c_conn *conn) {
    char error[320];
    switch (mw_h2_receive(conn->session, conn->ssl, &conn->read_wants_write, error, sizeof error)) {
    case MW_H2_RECEIVE_WAIT:
        return 0;
    case MW_H2_RECEIVE_PROTOCOL:
        client_log(conn->client, 2, conn->id, "HTTP/2 protocol error from the server: %s", error);
        flush(conn); /* the GOAWAY nghttp2 queued */
        return -1;
    case MW_H2_RECEIVE_CLOSED:
        client_log(conn->client, conn->streams.count ? 1 : 0, conn->id, "the server closed the connection");
        return -1;
    default:
        client_log(conn->client, 1, conn->id, "TLS read ended: %s", error);
        return -1;
    }
}

static int session_setup(struct h2c_conn *conn) {
    nghttp2_session_callbacks *callbacks;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) return -1;
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, on_frame_send);
    nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, on_frame_not_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
    int rv = nghttp2_session_client_new(&conn->session, callbacks, conn);
    nghttp2_session_callbacks_del(callbacks);
    if (rv != 0) {
        conn->session = NULL;
        client_log(conn->client, 2, conn->id, "cannot create the HTTP/2 session: %s", nghttp2_strerror(rv));
        return -1;
    }
    nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, WINDOW},
    };
    rv = nghttp2_submit_settings(conn->session, NGHTTP2_FLAG_NONE, settings, sizeof settings / sizeof settings[0]);
    if (rv == 0) rv = nghttp2_session_set_local_window_size(conn->session, NGHTTP2_FLAG_NONE, 0, WINDOW);
    if (rv != 0) {
        client_log(conn->client, 2, conn->id, "cannot submit SETTINGS: %s", nghttp2_strerror(rv));
        return -1;
    }
    return 0;
}

/* Starts a non-blocking connect to the next address. 0 when under way, -1 when no address is left. */
static int connect_next(struct h2c_conn *conn) {
    while (conn->next_address) {
        struct addrinfo *a = conn->next_address;
        conn->next_address = a->ai_next;
        if (conn->fd >= 0) close(conn->fd);
        conn->fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (conn->fd < 0) continue;
        int one = 1;
        setsockopt(conn->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(conn->fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
        if (connect(conn->fd, a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS) return 0;
        snprintf(conn->client->last_failure, sizeof conn->client->last_failure, "cannot connect to %s: %s",
                 conn->client->authority, strerror(errno));
    }
    return -1;
}

/* Opens a connection (its connect under way), or records why it could not. */
static struct h2c_conn *conn_open(mw_h2_client *c) {
    struct h2c_conn *conn = calloc(1, sizeof *conn);
    if (!conn) return NULL;
    conn->client = c;
    conn->id = ++c->next_conn_id;
    conn->fd = -1;
    conn->state = C_CONNECTING;
    conn->connect_deadline_ms = mw_h2_now_ms() + c->connect_timeout_ms;
    char port[8];
    snprintf(port, sizeof port, "%u", c->port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_ADDRCONFIG};
    /* Blocks this thread while the name resolves: the client's other
     * connections wait meanwhile (one origin, resolved rarely). */
    int rv = getaddrinfo(c->host, port, &hints, &conn->addresses);
    if (rv != 0) {
        snprintf(c->last_failure, sizeof c->last_failure, "cannot resolve %s: %s", c->host, gai_strerror(rv));
        c->last_failure_code = MW_H2C_CONNECT;
        free(conn);
        return NULL;
    }
    conn->next_address = conn->addresses;
    c->last_failure_code = MW_H2C_CONNECT;
    if (connect_next(conn) != 0) {
        freeaddrinfo(conn->addresses);
        if (conn->fd >= 0) close(conn->fd);
        free(conn);
        return NULL;
    }
    conn->next = c->conns;
    c->conns = conn;
    c->conn_count++;
    atomic_fetch_add(&c->opened, 1);
    atomic_fetch_add(&c->open, 1);
    client_log(c, 0, conn->id, "connecting to %s", c->authority);
    return conn;
}

/* Begins TLS once TCP is up. 0 to go on, -1 on failure. */
static int tls_begin(struct h2c_conn *conn) {
    mw_h2_client *c = conn->client;
    char err[256];
    conn->ssl = SSL_new(c->tls);
    if (!conn->ssl || SSL_set_fd(conn->ssl, conn->fd) != 1) {
        snprintf(c->last_failure, sizeof c->last_failure, "cannot create a TLS connection: %s", mw_h2_tls_error_text(err, sizeof err));
        c->last_failure_code = MW_H2C_OTHER;
        return -1;
    }
    if (!c->host_is_ip) SSL_set_tlsext_host_name(conn->ssl, c->host);
    X509_VERIFY_PARAM *param = SSL_get0_param(conn->ssl);
    int ok = c->host_is_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, c->host) : X509_VERIFY_PARAM_set1_host(param, c->host, 0);
    if (ok != 1) {
        snprintf(c->last_failure, sizeof c->last_failure, "cannot set the TLS host name check");
        c->last_failure_code = MW_H2C_OTHER;
        return -1;
    }
    SSL_set_connect_state(conn->ssl);
    conn->state = C_HANDSHAKING;
    return 0;
}

/* Advances the handshake. 1 when done (the session set up), 0 to wait, -1 on failure. */
static int tls_step(struct h2c_conn *conn) {
    mw_h2_client *c = conn->client;
    char err[256];
    ERR_clear_error();
    int r = SSL_do_handshake(conn->ssl);
    if (r != 1) {
        int e = SSL_get_error(conn->ssl, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            conn->read_wants_write = e == SSL_ERROR_WANT_WRITE;
            return 0;
        }
        long verify = SSL_get_verify_result(conn->ssl);
        if (verify != X509_V_OK) {
            snprintf(c->last_failure, sizeof c->last_failure, "TLS handshake with %s failed: certificate: %s", c->authority,
                     X509_verify_cert_error_string(verify));
            ERR_clear_error();
        } else {
            snprintf(c->last_failure, sizeof c->last_failure, "TLS handshake with %s failed: %s", c->authority,
                     mw_h2_tls_error_text(err, sizeof err));
        }
        c->last_failure_code = MW_H2C_TLS;
        return -1;
    }
    conn->read_wants_write = 0;
    const unsigned char *proto = NULL;
    unsigned int proto_len = 0;
    SSL_get0_alpn_selected(conn->ssl, &proto, &proto_len);
    if (proto_len != 2 || memcmp(proto, "h2", 2) != 0) {
        snprintf(c->last_failure, sizeof c->last_failure, "%s did not negotiate HTTP/2 (ALPN h2)", c->authority);
        c->last_failure_code = MW_H2C_TLS;
        return -1;
    }
    if (session_setup(conn) != 0) {
        snprintf(c->last_failure, sizeof c->last_failure, "cannot set up the HTTP/2 session");
        c->last_failure_code = MW_H2C_OTHER;
        return -1;
    }
    conn->state = C_READY;
    client_log(c, 0, conn->id, "connected to %s", c->authority);
    return 1;
}

/* Closes and frees a connection. Requests it carried go back to the queue
 * when they never left, and fail otherwise. */
static void conn_close(mw_h2_client *c, struct h2c_conn *conn, int error_if_sent) {
    struct h2c_conn **link = &c->conns;
    while (*link != conn) link = &(*link)->next;
    *link = conn->next;
    c->conn_count--;
    atomic_fetch_sub(&c->open, 1);
    while (conn->streams.head) {
        struct h2c_request *r = conn->streams.head;
        detach(conn, r);
        if (!r->headers_sent) {
            requeue(c, r, "", conn->id);
        } else if (r->response_started) {
            finish(c, r, error_if_sent == MW_H2C_SHUTDOWN ? MW_H2C_SHUTDOWN : MW_H2C_INCOMPLETE,
                   error_if_sent == MW_H2C_SHUTDOWN ? "the HTTP client was shut down" : "the connection ended mid-response",
                   conn->id, 0);
        } else {
            finish(c, r, error_if_sent,
                   error_if_sent == MW_H2C_SHUTDOWN ? "the HTTP client was shut down" : "the connection closed before a response",
                   conn->id, 0);
        }
    }
    if (conn->session) nghttp2_session_del(conn->session); /* does not report open streams */
    if (conn->ssl) {
        if (conn->state == C_READY || conn->state == C_DRAINING) SSL_shutdown(conn->ssl); /* best effort close_notify */
        SSL_free(conn->ssl);
    }
    ERR_clear_error();
    if (conn->fd >= 0) close(conn->fd);
    if (conn->addresses) freeaddrinfo(conn->addresses);
    free(conn->out.data);
    client_log(c, 0, conn->id, "connection closed after %llu responses", (unsigned long long)conn->answered);
    free(conn);
}

/* Fails every queued request with the last connection failure. */
static void fail_waiting(mw_h2_client *c) {
    while (c->waiting.head) {
        struct h2c_request *r = c->waiting.head;
        list_remove(&c->waiting, r);
        finish(c, r, c->last_failure_code ? c->last_failure_code : MW_H2C_CONNECT, c->last_failure, 0, 0);
    }
}

/* A connection attempt failed: logs it, and fails the queue when no other connection can take it. */
static void conn_failed(mw_h2_client *c, struct h2c_conn *conn) {
    client_log(c, 1, conn->id, "%s", c->last_failure);
    conn_close(c, conn, MW_H2C_CONNECTION_CLOSED);
    for (struct h2c_conn *o = c->conns; o; o = o->next) {
        if (o->state != C_DRAINING) return;
    }
    fail_waiting(c);
}

/* MARK: the loop */

static unsigned int stream_limit(mw_h2_client *c, struct h2c_conn *conn) {
    uint32_t remote = nghttp2_session_get_remote_settings(conn->session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
    unsigned int limit = c->max_streams;
    /* Before the server's SETTINGS, nghttp2 reports its default (100, or
     * unlimited); requests beyond a lower limit wait inside nghttp2. */
    if (remote > 0 && remote < limit) limit = remote;
    return limit;
}

/* Hands queued requests to ready connections; opens one more when they are full. */
static void assign(mw_h2_client *c) {
    c->requeued = 0;
    int connecting = 0;
    unsigned int usable = 0; /* connections not draining */
    for (struct h2c_conn *conn = c->conns; conn; conn = conn->next) {
        if (conn->state == C_CONNECTING || conn->state == C_HANDSHAKING) connecting = 1;
        if (conn->state != C_DRAINING) usable++;
        if (conn->state != C_READY || !c->waiting.head) continue;
        unsigned int limit = stream_limit(c, conn);
        while (c->waiting.head && conn->streams.count < limit) {
            struct h2c_request *r = c->waiting.head;
            list_remove(&c->waiting, r);
            nghttp2_data_provider provider = {.source = {.ptr = NULL}, .read_callback = read_body};
            int32_t id = nghttp2_submit_request(conn->session, NULL, r->nv, r->nv_len, r->body ? &provider : NULL, r);
            if (id < 0) {
                list_prepend(&c->waiting, r);
                client_log(c, 1, conn->id, "no new stream on this connection (%s): draining it", nghttp2_strerror(id));
                conn->state = C_DRAINING;
                break;
            }
            r->stream_id = id;
            r->conn = conn;
            list_append(&conn->streams, r);
        }
    }
    if (!c->waiting.head || connecting || usable >= c->max_connections) return;
    if (!conn_open(c)) {
        client_log(c, 1, 0, "%s", c->last_failure);
        if (usable == 0) fail_waiting(c);
    }
}

static void expire(mw_h2_client *c, uint64_t now) {
    for (struct h2c_request *r = c->waiting.head, *next; r; r = next) {
        next = r->next;
        if (r->deadline_ms > now) continue;
        list_remove(&c->waiting, r);
        finish(c, r, MW_H2C_TIMEOUT, "timed out waiting for a connection or stream", 0, 0);
    }
    for (struct h2c_conn *conn = c->conns; conn; conn = conn->next) {
        for (struct h2c_request *r = conn->streams.head, *next; r; r = next) {
            next = r->next;
            if (r->deadline_ms > now) continue;
            int32_t stream = r->stream_id;
            detach(conn, r);
            nghttp2_submit_rst_stream(conn->session, NGHTTP2_FLAG_NONE, stream, NGHTTP2_CANCEL);
            finish(c, r, MW_H2C_TIMEOUT, r->response_started ? "timed out mid-response" : "timed out waiting for the response",
                   conn->id, 0);
        }
    }
}

static void cancel_one(mw_h2_client *c, uint64_t id) {
    for (struct h2c_request *r = c->waiting.head; r; r = r->next) {
        if (r->id != id) continue;
        list_remove(&c->waiting, r);
        finish(c, r, MW_H2C_CANCELLED, "cancelled", 0, 0);
        return;
    }
    for (struct h2c_conn *conn = c->conns; conn; conn = conn->next) {
        for (struct h2c_request *r = conn->streams.head; r; r = r->next) {
            if (r->id != id) continue;
            int32_t stream = r->stream_id;
            detach(conn, r);
            nghttp2_submit_rst_stream(conn->session, NGHTTP2_FLAG_NONE, stream, NGHTTP2_CANCEL);
            finish(c, r, MW_H2C_CANCELLED, "cancelled", conn->id, 0);
            return;
        }
    }
}

/* Takes the inbox. Returns 1 when the client is stopping. */
static int take_inbox(mw_h2_client *c, uint64_t **cancels, size_t *cancel_count, size_t *cancel_cap) {
    pthread_mutex_lock(&c->lock);
    int stopping = c->stopping;
    list_splice(&c->waiting, &c->inbox);
    /* Swap the cancellation buffers: no allocation under the lock. */
    uint64_t *mine = *cancels;
    size_t my_cap = *cancel_cap;
    *cancels = c->cancels;
    *cancel_count = c->cancel_count;
    *cancel_cap = c->cancel_cap;
    c->cancels = mine;
    c->cancel_cap = my_cap;
    c->cancel_count = 0;
    pthread_mutex_unlock(&c->lock);
    return stopping;
}

/* One connection's events. */
static void conn_event(mw_h2_client *c, struct h2c_conn *conn, short revents) {
    if (conn->state == C_CONNECTING) {
        if (!(revents & (POLLOUT | POLLERR | POLLHUP))) return;
        int error = 0;
        socklen_t len = sizeof error;
        getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &error, &len);
        if (error != 0) {
            snprintf(c->last_failure, sizeof c->last_failure, "cannot connect to %s: %s", c->authority, strerror(error));
            c->last_failure_code = MW_H2C_CONNECT;
            if (connect_next(conn) != 0) conn_failed(c, conn);
            return;
        }
        if (tls_begin(conn) != 0) {
            conn_failed(c, conn);
            return;
        }
    }
    if (conn->state == C_HANDSHAKING) {
        int r = tls_step(conn);
        if (r < 0) conn_failed(c, conn);
        if (r <= 0) return;
        /* Ready: the caller's next turn assigns requests and flushes. */
        return;
    }
    if ((revents & (POLLIN | POLLHUP | POLLERR)) || (conn->read_wants_write && (revents & POLLOUT)) || SSL_pending(conn->ssl) > 0) {
        if (receive(conn) != 0) conn->failed = 1;
    }
}

static void run(mw_h2_client *c) {
    struct pollfd *fds = NULL;
    struct h2c_conn **fd_conns = NULL;
    size_t fds_cap = 0;
    uint64_t *cancels = NULL;
    size_t cancel_count = 0, cancel_cap = 0;
    uint64_t next_tick = mw_h2_now_ms() + TICK_MS;
    for (;;) {
        if (take_inbox(c, &cancels, &cancel_count, &cancel_cap)) break;
        for (size_t i = 0; i < cancel_count; i++) cancel_one(c, cancels[i]);
        uint64_t now = mw_h2_now_ms();
        if (now >= next_tick) {
            expire(c, now);
            next_tick = now + TICK_MS;
            for (struct h2c_conn *conn = c->conns, *next; conn; conn = next) {
                next = conn->next;
                if ((conn->state == C_CONNECTING || conn->state == C_HANDSHAKING) && now >= conn->connect_deadline_ms) {
                    snprintf(c->last_failure, sizeof c->last_failure, "connecting to %s timed out after %u ms", c->authority,
                             c->connect_timeout_ms);
                    c->last_failure_code = MW_H2C_CONNECT;
                    conn_failed(c, conn);
                }
            }
        }
        assign(c);

        size_t n = 1;
        for (struct h2c_conn *conn = c->conns; conn; conn = conn->next) n++;
        if (n > fds_cap) {
            free(fds);
            free(fd_conns);
            fds_cap = n * 2;
            fds = calloc(fds_cap, sizeof *fds);
            fd_conns = calloc(fds_cap, sizeof *fd_conns);
            if (!fds || !fd_conns) abort();
        }
        fds[0] = (struct pollfd){c->wake_fd, POLLIN, 0};
        n = 1;
        int busy = c->waiting.count > 0;
        int immediate = 0;
        for (struct h2c_conn *conn = c->conns, *next; conn; conn = next) {
            next = conn->next;
            short events = 0;
            if (conn->state == C_CONNECTING) {
                events = POLLOUT;
            } else if (conn->state == C_HANDSHAKING) {
                events = conn->read_wants_write ? POLLOUT : POLLIN;
            } else {
                if (!conn->failed && flush(conn) != 0) conn->failed = 1;
                int done = !conn->failed && conn->state == C_DRAINING && conn->streams.count == 0 &&
                           !mw_h2_out_pending(&conn->out);
                if (!conn->failed && !nghttp2_session_want_read(conn->session) && !nghttp2_session_want_write(conn->session) &&
                    !mw_h2_out_pending(&conn->out)) {
                    done = 1;
                }
                if (conn->failed || done) {
                    conn_close(c, conn, MW_H2C_CONNECTION_CLOSED);
                    continue;
                }
                events = POLLIN;
                if (mw_h2_out_pending(&conn->out) || conn->read_wants_write) events |= POLLOUT;
                if (SSL_pending(conn->ssl) > 0) immediate = 1;
            }
            busy |= conn->streams.count > 0 || conn->state == C_CONNECTING || conn->state == C_HANDSHAKING;
            fds[n] = (struct pollfd){conn->fd, events, 0};
            fd_conns[n] = conn;
            n++;
        }
        /* Requests put back by a closing connection: assign them before sleeping. */
        if (c->requeued) immediate = 1;
        int timeout = -1;
        if (busy) {
            now = mw_h2_now_ms();
            timeout = next_tick > now ? (int)(next_tick - now) : 0;
        }
        if (immediate) timeout = 0;
        int r = poll(fds, (nfds_t)n, timeout);
        if (r < 0) {
            if (errno == EINTR) continue;
            client_log(c, 2, 0, "poll failed: %s", strerror(errno));
            usleep(10000);
            continue;
        }
        if (!busy) next_tick = mw_h2_now_ms() + TICK_MS;
        if (fds[0].revents & POLLIN) {
            /* One read zeroes the counter; the next turn takes the inbox, and a wake written after this read makes
             * the descriptor readable again. */
            uint64_t value;
            (void)!read(c->wake_fd, &value, sizeof value);
        }
        for (size_t i = 1; i < n; i++) {
            if (fds[i].revents || (fd_conns[i]->ssl && fd_conns[i]->state >= C_READY && SSL_pending(fd_conns[i]->ssl) > 0)) {
                conn_event(c, fd_conns[i], fds[i].revents);
            }
        }
    }
    free(fds);
    free(fd_conns);
    free(cancels);
    while (c->conns) conn_close(c, c->conns, MW_H2C_SHUTDOWN);
    pthread_mutex_lock(&c->lock);
    list_splice(&c->waiting, &c->inbox);
    pthread_mutex_unlock(&c->lock);
    while (c->waiting.head) {
        struct h2c_request *r = c->waiting.head;
        list_remove(&c->waiting, r);
        finish(c, r, MW_H2C_SHUTDOWN, "the HTTP client was shut down", 0, 0);
    }
}

static void *client_main(void *arg) {
    mw_h2_client *c = arg;
    pthread_setname_np(pthread_self(), c->thread_name);
    run(c);
    OPENSSL_thread_stop();
    return NULL;
}

/* MARK: public */

mw_h2_client *mw_h2_client_start(const mw_h2_client_config *config, char *error, size_t error_len) {
    char err[256];
#define FAIL(...) do { if (error && error_len) snprintf(error, error_len, __VA_ARGS__); goto fail; } while (0)
    mw_h2_client *c = calloc(1, sizeof *c);
    if (!c) {
        if (error && error_len) snprintf(error, error_len, "out of memory");
        return NULL;
    }
    c->wake_fd = -1;
    if (!config->host || !*config->host || !config->on_done || config->connections == 0 || config->max_streams == 0) {
        FAIL("host, on_done, connections and max_streams are required");
    }
    c->host = strdup(config->host);
    struct in6_addr any;
    c->host_is_ip = inet_pton(AF_INET, config->host, &any) == 1 || inet_pton(AF_INET6, config->host, &any) == 1;
    size_t alen = strlen(config->host) + 16;
    c->authority = malloc(alen);
    if (!c->host || !c->authority) FAIL("out of memory");
    int v6 = strchr(config->host, ':') != NULL;
    if (config->port == 443) {
        snprintf(c->authority, alen, v6 ? "[%s]" : "%s", config->host);
    } else {
        snprintf(c->authority, alen, v6 ? "[%s]:%u" : "%s:%u", config->host, config->port);
    }
    c->port = config->port;
    c->max_connections = config->connections;
    c->max_streams = config->max_streams;
    c->connect_timeout_ms = config->connect_timeout_ms ? config->connect_timeout_ms : 10000;
    c->max_header_bytes = config->max_header_bytes;
    snprintf(c->thread_name, sizeof c->thread_name, "%s", config->thread_name ? config->thread_name : "mw-h2-client");
    c->on_done = config->on_done;
    c->on_log = config->on_log;
    c->ctx = config->ctx;

    c->tls = SSL_CTX_new(TLS_client_method());
    if (!c->tls) FAIL("cannot create a TLS context: %s", mw_h2_tls_error_text(err, sizeof err));
    SSL_CTX_set_min_proto_version(c->tls, TLS1_2_VERSION);
    SSL_CTX_set_verify(c->tls, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(c->tls, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    int loaded = config->ca_file ? SSL_CTX_load_verify_locations(c->tls, config->ca_file, NULL)
                                 : SSL_CTX_set_default_verify_paths(c->tls);
    if (loaded != 1) FAIL("cannot load the trusted certificates: %s", mw_h2_tls_error_text(err, sizeof err));
    static const unsigned char alpn[] = {2, 'h', '2'};
    if (SSL_CTX_set_alpn_protos(c->tls, alpn, sizeof alpn) != 0) FAIL("cannot set ALPN");

    c->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (c->wake_fd < 0) FAIL("eventfd: %s", strerror(errno));
    if (pthread_mutex_init(&c->lock, NULL) != 0) FAIL("cannot create a lock");
    if (pthread_cond_init(&c->stopped_cond, NULL) != 0) {
        pthread_mutex_destroy(&c->lock);
        FAIL("cannot create a condition variable");
    }

    /* The thread inherits this mask: SIGPIPE (a write to a closed peer fails
     * with EPIPE instead) and the termination signals stay with the process. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rv = pthread_create(&c->thread, NULL, client_main, c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rv != 0) {
        pthread_cond_destroy(&c->stopped_cond);
        pthread_mutex_destroy(&c->lock);
        FAIL("cannot start the client thread: %s", strerror(rv));
    }
    return c;
fail:
    if (c->wake_fd >= 0) close(c->wake_fd);
    if (c->tls) SSL_CTX_free(c->tls);
    free(c->host);
    free(c->authority);
    free(c);
    return NULL;
#undef FAIL
}

/* Wakes the client's thread (an eventfd whose counter is already non-zero takes the write and wakes nobody twice). */
static void wake(mw_h2_client *c) {
    uint64_t one = 1;
    (void)!write(c->wake_fd, &one, sizeof one);
}

int mw_h2_client_submit(mw_h2_client *c, uint64_t id, const char *method, size_t method_len, const char *path, size_t path_len,
                        const mw_h2c_header *headers, size_t header_count, const uint8_t *body, size_t body_len,
                        size_t max_response_bytes, uint32_t timeout_ms, void *request_ctx) {
    static const char scheme[] = "https";
    size_t authority_len = strlen(c->authority);
    size_t nv_len = 4 + header_count;
    size_t strings = method_len + path_len + sizeof scheme + authority_len + 7 + 5 + 10 + 7;
    for (size_t i = 0; i < header_count; i++) strings += headers[i].name_len + headers[i].value_len;
    size_t size = sizeof(struct h2c_request) + nv_len * sizeof(nghttp2_nv) + strings + body_len;
    struct h2c_request *r = calloc(1, size);
    if (!r) return -1;
    r->id = id;
    r->ctx = request_ctx;
    r->deadline_ms = mw_h2_now_ms() + timeout_ms;
    r->max_response_bytes = max_response_bytes;
    r->nv = (nghttp2_nv *)(r + 1);
    r->nv_len = nv_len;
    uint8_t *p = (uint8_t *)(r->nv + nv_len);
#define NV(i, n, nl, v, vl) do { \
        memcpy(p, n, nl); r->nv[i].name = p; r->nv[i].namelen = nl; p += nl; \
        if (vl) memcpy(p, v, vl); r->nv[i].value = p; r->nv[i].valuelen = vl; p += vl; \
        r->nv[i].flags = NGHTTP2_NV_FLAG_NONE; } while (0)
    NV(0, ":method", 7, method, method_len);
    NV(1, ":scheme", 7, scheme, sizeof scheme - 1);
    NV(2, ":authority", 10, c->authority, authority_len);
    NV(3, ":path", 5, path, path_len);
    for (size_t i = 0; i < header_count; i++) {
        NV(4 + i, headers[i].name, headers[i].name_len, headers[i].value, headers[i].value_len);
        if (headers[i].name_len && (headers[i].name_len > 13 || memcmp(headers[i].name, "authorization", 13) != 0)) continue;
        /* Never into HPACK's dynamic table: the token changes, and a
         * compression oracle on it is not worth the bytes. */
        r->nv[4 + i].flags = NGHTTP2_NV_FLAG_NO_INDEX;
    }
#undef NV
    if (body) {
        memcpy(p, body, body_len);
        r->body = p;
        r->body_len = body_len;
    }
    pthread_mutex_lock(&c->lock);
    if (c->stopping) {
        pthread_mutex_unlock(&c->lock);
        free(r);
        return -1;
    }
    int first = c->inbox.head == NULL;
    list_append(&c->inbox, r);
    pthread_mutex_unlock(&c->lock);
    /* After the unlock: the woken thread's first step takes this lock. */
    if (first) wake(c);
    return 0;
}

void mw_h2_client_cancel(mw_h2_client *c, uint64_t id) {
    int queued = 0;
    pthread_mutex_lock(&c->lock);
    if (!c->stopping && grow((void **)&c->cancels, &c->cancel_cap, (c->cancel_count + 1) * sizeof(uint64_t),
                             16 * sizeof(uint64_t)) == 0) {
        c->cancels[c->cancel_count++] = id;
        queued = 1;
    }
    pthread_mutex_unlock(&c->lock);
    if (queued) wake(c);
}

uint64_t mw_h2_client_connections_opened(const mw_h2_client *c) { return atomic_load(&c->opened); }

uint64_t mw_h2_client_connections_open(const mw_h2_client *c) { return atomic_load(&c->open); }

void mw_h2_client_stop(mw_h2_client *c) {
    pthread_mutex_lock(&c->lock);
    if (c->stopping) {
        while (!c->stopped) pthread_cond_wait(&c->stopped_cond, &c->lock);
        pthread_mutex_unlock(&c->lock);
        return;
    }
    c->stopping = 1;
    pthread_mutex_unlock(&c->lock);
    wake(c);
    pthread_join(c->thread, NULL);
    pthread_mutex_lock(&c->lock);
    c->stopped = 1;
    pthread_cond_broadcast(&c->stopped_cond);
    pthread_mutex_unlock(&c->lock);
}

void mw_h2_client_free(mw_h2_client *c) {
    mw_h2_client_stop(c);
    pthread_cond_destroy(&c->stopped_cond);
    pthread_mutex_destroy(&c->lock);
    close(c->wake_fd);
    SSL_CTX_free(c->tls);
    free(c->cancels);
    free(c->host);
    free(c->authority);
    free(c);
}
