/*
 * HTTP/2 over TLS server: see include/mw_h2_server.h for the contract.
 *
 * Threads: one accept thread; one thread per connection running a poll loop
 * over the socket, the connection's wake eventfd (GOAWAY requests) and the
 * server's stop eventfd, with the time of the next delayed response as the
 * poll timeout. Every thread the shim starts blocks SIGPIPE (a write to a
 * closed peer then fails with EPIPE instead of killing the process) and the
 * termination signals (they belong to the process's own handlers).
 *
 * Ownership: a `struct h2_conn` belongs to its thread; the server's list of
 * connections (under `lock`) is only used to find a connection's wake fd,
 * and a connection leaves the list before that fd is closed. A `struct
 * h2_stream` is created when a request's HEADERS begin and freed exactly once:
 * when nghttp2 closes the stream, or after nghttp2_session_del for the
 * streams still open when the connection ends (the session does not report
 * those). A delayed response lives in its stream, linked into the
 * connection's pending list, so a stream reset while waiting frees it too.
 */
#define _GNU_SOURCE
#include "mw_h2_server.h"
#include "mw_h2_tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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

#define HANDSHAKE_TIMEOUT_MS 10000

enum field {
    F_METHOD, F_PATH, F_AUTHORIZATION, F_TOPIC, F_PUSH_TYPE, F_PRIORITY, F_ID, F_EXPIRATION, F_COLLAPSE_ID, F_COUNT
};

static const struct {
    const char *name;
    size_t len;
} field_names[F_COUNT] = {
    {":method", 7},        {":path", 5},           {"authorization", 13},
    {"apns-topic", 10},    {"apns-push-type", 14}, {"apns-priority", 13},
    {"apns-id", 7},        {"apns-expiration", 15}, {"apns-collapse-id", 16},
};

struct h2_conn;

struct h2_stream {
    int32_t id;
    int dispatched;
    /* request */
    char *fields[F_COUNT];
    size_t field_len[F_COUNT];
    uint8_t *body;
    size_t body_len;   /* kept */
    size_t body_cap;
    size_t body_total; /* received */
    /* response */
    unsigned int status;
    char status_text[8];
    char content_length[24];
    char *apns_id;
    size_t apns_id_len;
    uint8_t *response_body;
    size_t response_len;
    size_t response_off;
    uint64_t due_ms;
    int pending;
    /* every open stream of the connection */
    struct h2_stream *prev, *next;
    /* delayed responses, by due time */
    struct h2_stream *pending_prev, *pending_next;
};

struct h2_conn {
    mw_h2_server *server;
    uint64_t id;
    int fd;
    int wake_fd;
    SSL *ssl;
    nghttp2_session *session;
    atomic_int goaway_requested;
    int goaway_submitted;
    int32_t goaway_last_stream;
    uint32_t requests;
    int32_t max_dispatched_stream;
    uint32_t resets_received;
    int read_wants_write;
    struct h2_stream *streams;
    struct h2_stream *pending_head, *pending_tail;
    mw_h2_out out;
    struct h2_conn *prev, *next; /* server list */
};

struct mw_h2_server {
    int listen_fd;
    int stop_fd;
    uint16_t port;
    SSL_CTX *tls;
    pthread_t accept_thread;
    size_t max_body_bytes;
    int require_alpn;
    atomic_uint max_concurrent_streams;
    atomic_int stopping;
    atomic_uint_fast64_t accepted;
    atomic_uint_fast64_t open;
    mw_h2_request_cb on_request;
    mw_h2_log_cb on_log;
    void *ctx;
    pthread_mutex_t lock;
    pthread_cond_t idle;
    struct h2_conn *connections; /* under lock */
    unsigned int threads;        /* connection threads alive, under lock */
};

/* MARK: small helpers */


__attribute__((format(printf, 4, 5)))
static void server_log(mw_h2_server *s, int level, uint64_t connection, const char *fmt, ...) {
    if (!s->on_log) return;
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    s->on_log(s->ctx, level, connection, message);
}


__attribute__((format(printf, 3, 4)))
static void set_error(char *error, size_t len, const char *fmt, ...) {
    if (!error || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error, len, fmt, ap);
    va_end(ap);
}

int mw_h2_response_set_apns_id(mw_h2_response *r, const char *value, size_t len) {
    char *copy = malloc(len + 1);
    if (!copy) return -1;
    if (len) memcpy(copy, value, len);
    copy[len] = 0;
    free(r->apns_id);
    r->apns_id = copy;
    r->apns_id_len = len;
    return 0;
}

int mw_h2_response_set_body(mw_h2_response *r, const uint8_t *bytes, size_t len) {
    uint8_t *copy = NULL;
    if (len) {
        copy = malloc(len);
        if (!copy) return -1;
        memcpy(copy, bytes, len);
    }
    free(r->body);
    r->body = copy;
    r->body_len = len;
    return 0;
}

/* MARK: streams */

static void stream_free_request(struct h2_stream *st) {
    for (int i = 0; i < F_COUNT; i++) {
        free(st->fields[i]);
        st->fields[i] = NULL;
        st->field_len[i] = 0;
    }
    free(st->body);
    st->body = NULL;
    st->body_len = st->body_cap = 0;
}

static void pending_unlink(struct h2_conn *c, struct h2_stream *st) {
    if (!st->pending) return;
    if (st->pending_prev) st->pending_prev->pending_next = st->pending_next; else c->pending_head = st->pending_next;
    if (st->pending_next) st->pending_next->pending_prev = st->pending_prev; else c->pending_tail = st->pending_prev;
    st->pending_prev = st->pending_next = NULL;
    st->pending = 0;
}

/* Inserts by due time, searching from the tail (delays are mostly equal). */
static void pending_insert(struct h2_conn *c, struct h2_stream *st) {
    struct h2_stream *after = c->pending_tail;
    while (after && after->due_ms > st->due_ms) after = after->pending_prev;
    st->pending_prev = after;
    st->pending_next = after ? after->pending_next : c->pending_head;
    if (st->pending_next) st->pending_next->pending_prev = st; else c->pending_tail = st;
    if (after) after->pending_next = st; else c->pending_head = st;
    st->pending = 1;
}

static void stream_free(struct h2_conn *c, struct h2_stream *st) {
    pending_unlink(c, st);
    if (st->prev) st->prev->next = st->next; else c->streams = st->next;
    if (st->next) st->next->prev = st->prev;
    stream_free_request(st);
    free(st->apns_id);
    free(st->response_body);
    free(st);
}

static ssize_t read_response_body(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
                                  uint32_t *data_flags, nghttp2_data_source *source, void *user_data) {
    (void)session;
    (void)stream_id;
    (void)user_data;
    struct h2_stream *st = source->ptr;
    size_t left = st->response_len - st->response_off;
    size_t n = left < length ? left : length;
    memcpy(buf, st->response_body + st->response_off, n);
    st->response_off += n;
    if (st->response_off == st->response_len) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

#define NV(NAME, VALUE, VALUE_LEN) \
    ((nghttp2_nv){(uint8_t *)(NAME), (uint8_t *)(VALUE), sizeof(NAME) - 1, (VALUE_LEN), NGHTTP2_NV_FLAG_NONE})

static void submit_response(struct h2_conn *c, struct h2_stream *st) {
    nghttp2_nv nva[4];
    size_t n = 0;
    snprintf(st->status_text, sizeof st->status_text, "%u", st->status);
    nva[n++] = NV(":status", st->status_text, strlen(st->status_text));
    if (st->apns_id) nva[n++] = NV("apns-id", st->apns_id, st->apns_id_len);
    nghttp2_data_provider provider = {.source = {.ptr = st}, .read_callback = read_response_body};
    if (st->response_len) {
        snprintf(st->content_length, sizeof st->content_length, "%zu", st->response_len);
        nva[n++] = NV("content-type", "application/json", 16);
        nva[n++] = NV("content-length", st->content_length, strlen(st->content_length));
    }
    int rv = nghttp2_submit_response(c->session, st->id, nva, n, st->response_len ? &provider : NULL);
    if (rv != 0) {
        server_log(c->server, 2, c->id, "cannot submit the response of stream %d: %s", st->id, nghttp2_strerror(rv));
        nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_INTERNAL_ERROR);
    }
}

/* GOAWAY naming `last_stream` as the last stream this connection processes.
 * Streams above it that are open but not dispatched yet are reset with
 * REFUSED_STREAM now (the client may retry them elsewhere; they would
 * otherwise keep the connection open), and any completing later are refused
 * in dispatch(). */
static void submit_goaway(struct h2_conn *c, int32_t last_stream) {
    if (c->goaway_submitted) return;
    c->goaway_submitted = 1;
    c->goaway_last_stream = last_stream;
    int rv = nghttp2_submit_goaway(c->session, NGHTTP2_FLAG_NONE, last_stream, NGHTTP2_NO_ERROR, NULL, 0);
    if (rv != 0) {
        server_log(c->server, 2, c->id, "cannot submit GOAWAY: %s", nghttp2_strerror(rv));
        return;
    }
    for (struct h2_stream *st = c->streams; st; st = st->next) {
        if (st->id > last_stream && !st->dispatched) {
            st->dispatched = 1;
            stream_free_request(st);
            nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_REFUSED_STREAM);
        }
    }
    server_log(c->server, 0, c->id, "GOAWAY with last stream %d", last_stream);
}

static const char *field_ptr(const struct h2_stream *st, enum field f) { return st->fields[f]; }

/* A request is complete: ask Swift, then answer now or queue the answer. */
static void dispatch(struct h2_conn *c, struct h2_stream *st) {
    if (st->dispatched) return;
    st->dispatched = 1;
    if (c->goaway_submitted && st->id > c->goaway_last_stream) {
        /* Above the GOAWAY's last stream id: the client will retry it elsewhere,
         * so it must not be processed here. */
        nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_REFUSED_STREAM);
        stream_free_request(st);
        return;
    }
    mw_h2_server *s = c->server;
    c->requests++;
    if (st->id > c->max_dispatched_stream) c->max_dispatched_stream = st->id;
    mw_h2_request request = {
        .method = field_ptr(st, F_METHOD), .method_len = st->field_len[F_METHOD],
        .path = field_ptr(st, F_PATH), .path_len = st->field_len[F_PATH],
        .authorization = field_ptr(st, F_AUTHORIZATION), .authorization_len = st->field_len[F_AUTHORIZATION],
        .apns_topic = field_ptr(st, F_TOPIC), .apns_topic_len = st->field_len[F_TOPIC],
        .apns_push_type = field_ptr(st, F_PUSH_TYPE), .apns_push_type_len = st->field_len[F_PUSH_TYPE],
        .apns_priority = field_ptr(st, F_PRIORITY), .apns_priority_len = st->field_len[F_PRIORITY],
        .apns_id = field_ptr(st, F_ID), .apns_id_len = st->field_len[F_ID],
        .apns_expiration = field_ptr(st, F_EXPIRATION), .apns_expiration_len = st->field_len[F_EXPIRATION],
        .apns_collapse_id = field_ptr(st, F_COLLAPSE_ID), .apns_collapse_id_len = st->field_len[F_COLLAPSE_ID],
        .body = st->body, .body_len = st->body_len, .body_received = st->body_total,
        .connection_id = c->id, .stream_id = st->id, .connection_requests = c->requests,
    };
    mw_h2_response response = {.status = 200};
    s->on_request(s->ctx, &request, &response);
    stream_free_request(st);

    st->status = response.status >= 200 && response.status <= 599 ? response.status : 500;
    st->apns_id = response.apns_id;
    st->apns_id_len = response.apns_id_len;
    st->response_body = response.body;
    st->response_len = response.body_len;
    if (response.delay_ms == 0) {
        submit_response(c, st);
    } else {
        st->due_ms = mw_h2_now_ms() + response.delay_ms;
        pending_insert(c, st);
    }
    /* The last stream is this one, or a higher one already answered (streams
     * may complete out of order). */
    if (response.goaway) submit_goaway(c, c->max_dispatched_stream);
}

/* MARK: nghttp2 callbacks */

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame, void *user_data) {
    struct h2_conn *c = user_data;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    struct h2_stream *st = calloc(1, sizeof *st);
    if (!st) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    st->id = frame->hd.stream_id;
    st->next = c->streams;
    if (c->streams) c->streams->prev = st;
    c->streams = st;
    nghttp2_session_set_stream_user_data(session, st->id, st);
    return 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user_data) {
    (void)flags;
    (void)user_data;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    struct h2_stream *st = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (!st) return 0;
    for (int i = 0; i < F_COUNT; i++) {
        if (namelen != field_names[i].len || memcmp(name, field_names[i].name, namelen) != 0) continue;
        if (st->fields[i]) return 0; /* repeated: the first one counts */
        char *copy = malloc(valuelen + 1);
        if (!copy) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
        memcpy(copy, value, valuelen);
        copy[valuelen] = 0;
        st->fields[i] = copy;
        st->field_len[i] = valuelen;
        return 0;
    }
    return 0;
}

static int on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data, size_t len,
                         void *user_data) {
    (void)flags;
    struct h2_conn *c = user_data;
    struct h2_stream *st = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!st || st->dispatched) return 0;
    st->body_total += len;
    size_t limit = c->server->max_body_bytes;
    size_t room = limit > st->body_len ? limit - st->body_len : 0;
    size_t take = len < room ? len : room;
    if (take == 0) return 0;
    if (st->body_len + take > st->body_cap) {
        size_t cap = st->body_cap ? st->body_cap : 1024;
        while (cap < st->body_len + take) cap *= 2;
        if (cap > limit) cap = limit;
        uint8_t *grown = realloc(st->body, cap);
        if (!grown) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
        st->body = grown;
        st->body_cap = cap;
    }
    memcpy(st->body + st->body_len, data, take);
    st->body_len += take;
    return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user_data) {
    struct h2_conn *c = user_data;
    if (frame->hd.type == NGHTTP2_RST_STREAM) c->resets_received++;
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
        struct h2_stream *st = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
        if (st) dispatch(c, st);
    }
    return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user_data) {
    (void)error_code;
    struct h2_conn *c = user_data;
    struct h2_stream *st = nghttp2_session_get_stream_user_data(session, stream_id);
    if (st) {
        nghttp2_session_set_stream_user_data(session, stream_id, NULL);
        stream_free(c, st);
    }
    return 0;
}

/* MARK: connection I/O */

/* Waits for `events` on the socket; 1 ready, 0 timeout, -1 stop or error. */
static int wait_socket(struct h2_conn *c, short events, int timeout_ms) {
    struct pollfd p[2] = {{c->fd, events, 0}, {c->server->stop_fd, POLLIN, 0}};
    for (;;) {
        int r = poll(p, 2, timeout_ms);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 || p[1].revents) return -1;
        return r > 0 ? 1 : 0;
    }
}

static int tls_handshake(struct h2_conn *c) {
    char err[256];
    c->ssl = SSL_new(c->server->tls);
    if (!c->ssl || SSL_set_fd(c->ssl, c->fd) != 1) {
        server_log(c->server, 2, c->id, "cannot create a TLS connection: %s", mw_h2_tls_error_text(err, sizeof err));
        return -1;
    }
    SSL_set_accept_state(c->ssl);
    uint64_t deadline = mw_h2_now_ms() + HANDSHAKE_TIMEOUT_MS;
    for (;;) {
        ERR_clear_error();
        int r = SSL_do_handshake(c->ssl);
        if (r == 1) break;
        int e = SSL_get_error(c->ssl, r);
        short events = e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
        if (!events) {
            server_log(c->server, 0, c->id, "TLS handshake failed: %s", mw_h2_tls_error_text(err, sizeof err));
            return -1;
        }
        uint64_t now = mw_h2_now_ms();
        if (now >= deadline || wait_socket(c, events, (int)(deadline - now)) != 1) {
            server_log(c->server, 0, c->id, "TLS handshake timed out or the server is stopping");
            return -1;
        }
    }
    const unsigned char *proto = NULL;
    unsigned int proto_len = 0;
    SSL_get0_alpn_selected(c->ssl, &proto, &proto_len);
    if (proto_len == 0 && !c->server->require_alpn) return 0; /* no ALPN offered: HTTP/2 by prior knowledge */
    if (proto_len != 2 || memcmp(proto, "h2", 2) != 0) {
        server_log(c->server, 0, c->id, "the client did not negotiate h2 through ALPN");
        return -1;
    }
    return 0;
}

static int session_setup(struct h2_conn *c) {
    nghttp2_session_callbacks *callbacks;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) return -1;
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
    nghttp2_option *options;
    if (nghttp2_option_new(&options) != 0) {
        nghttp2_session_callbacks_del(callbacks);
        return -1;
    }
    /* libcurl 7.88 (the relay's client) resets every stream it has finished
     * with (RST_STREAM after the response), so nghttp2's rapid-reset guard
     * (1000 resets, then 33 a second) would tear busy connections down
     * every couple of thousand requests, which APNs does not do. */
    nghttp2_option_set_stream_reset_rate_limit(options, UINT64_MAX / 2, UINT64_MAX / 2);
    int rv = nghttp2_session_server_new2(&c->session, callbacks, c, options);
    nghttp2_option_del(options);
    nghttp2_session_callbacks_del(callbacks);
    if (rv != 0) {
        c->session = NULL;
        server_log(c->server, 2, c->id, "cannot create the HTTP/2 session: %s", nghttp2_strerror(rv));
        return -1;
    }
    nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, atomic_load(&c->server->max_concurrent_streams)},
    };
    rv = nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings, sizeof settings / sizeof settings[0]);
    if (rv != 0) {
        server_log(c->server, 2, c->id, "cannot submit SETTINGS: %s", nghttp2_strerror(rv));
        return -1;
    }
    return 0;
}

/* Writes what nghttp2 has ready. 0 when everything went out or the socket
 * is full (the rest stays in `out`), -1 when the connection failed. */
static int flush(struct h2_conn *c) {
    char error[320];
    if (mw_h2_flush(c->session, c->ssl, &c->out, error, sizeof error) == 0) return 0;
    server_log(c->server, 0, c->id, "%s", error);
    return -1;
}

/* Reads and processes what has arrived. 0 to go on, -1 when the connection ended. */
static int receive(struct h2_conn *c) {
    char error[320];
    switch (mw_h2_receive(c->session, c->ssl, &c->read_wants_write, error, sizeof error)) {
    case MW_H2_RECEIVE_WAIT:
        return 0;
    case MW_H2_RECEIVE_PROTOCOL:
        server_log(c->server, 0, c->id, "HTTP/2 protocol error from the client: %s", error);
        flush(c); /* a GOAWAY nghttp2 may have queued */
        return -1;
    case MW_H2_RECEIVE_CLOSED:
        server_log(c->server, 0, c->id, "the client closed the connection");
        return -1;
    default:
        server_log(c->server, 0, c->id, "TLS read ended: %s", error);
        return -1;
    }
}

static void submit_due(struct h2_conn *c) {
    if (!c->pending_head) return;
    uint64_t now = mw_h2_now_ms();
    while (c->pending_head && c->pending_head->due_ms <= now) {
        struct h2_stream *st = c->pending_head;
        pending_unlink(c, st);
        submit_response(c, st);
    }
}

static void serve(struct h2_conn *c) {
    mw_h2_server *s = c->server;
    for (;;) {
        if (atomic_load(&s->stopping)) return;
        if (atomic_exchange(&c->goaway_requested, 0)) submit_goaway(c, nghttp2_session_get_last_proc_stream_id(c->session));
        submit_due(c);
        if (flush(c) != 0) return;
        int idle_out = !mw_h2_out_pending(&c->out);
        if (!nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session) && idle_out) {
            server_log(s, 0, c->id, "HTTP/2 session finished");
            return;
        }
        int timeout = -1;
        if (c->pending_head) {
            uint64_t now = mw_h2_now_ms();
            timeout = c->pending_head->due_ms > now ? (int)(c->pending_head->due_ms - now) : 0;
        }
        if (SSL_pending(c->ssl) > 0) timeout = 0;
        short events = POLLIN;
        if (!idle_out || c->read_wants_write) events |= POLLOUT;
        struct pollfd p[3] = {{c->fd, events, 0}, {c->wake_fd, POLLIN, 0}, {s->stop_fd, POLLIN, 0}};
        int r = poll(p, 3, timeout);
        if (r < 0) {
            if (errno == EINTR) continue;
            return;
        }
        if (p[2].revents) return;
        if (p[1].revents & POLLIN) {
            uint64_t value;
            if (read(c->wake_fd, &value, sizeof value) < 0 && errno != EAGAIN) return;
            /* Before reading what arrived with the wake-up: a request sent
             * after the GOAWAY was asked for must fall above its last stream. */
            if (atomic_exchange(&c->goaway_requested, 0)) submit_goaway(c, nghttp2_session_get_last_proc_stream_id(c->session));
        }
        if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) || (c->read_wants_write && (p[0].revents & POLLOUT)) ||
            SSL_pending(c->ssl) > 0) {
            if (receive(c) != 0) return;
        }
    }
}

/* Closes and frees a connection; `on_own_thread` when called by its thread. */
static void connection_end(struct h2_conn *c, int on_own_thread) {
    mw_h2_server *s = c->server;
    pthread_mutex_lock(&s->lock);
    if (c->prev) c->prev->next = c->next; else s->connections = c->next;
    if (c->next) c->next->prev = c->prev;
    pthread_mutex_unlock(&s->lock);

    if (c->session) nghttp2_session_del(c->session); /* does not report open streams */
    while (c->streams) stream_free(c, c->streams);
    if (c->ssl) {
        SSL_shutdown(c->ssl); /* best effort close_notify; the socket is non-blocking */
        SSL_free(c->ssl);
    }
    ERR_clear_error();
    close(c->fd);
    close(c->wake_fd);
    free(c->out.data);
    server_log(s, 0, c->id, "connection closed after %u requests (%u stream resets from the client)", c->requests,
               c->resets_received);
    free(c);
    atomic_fetch_sub(&s->open, 1);
    /* Free this thread's OpenSSL state (its DRBGs) now: the thread is
     * detached, and once the count below reaches zero the process may exit
     * before the thread-exit handlers would have run. */
    if (on_own_thread) OPENSSL_thread_stop();

    pthread_mutex_lock(&s->lock);
    s->threads--;
    pthread_cond_broadcast(&s->idle);
    pthread_mutex_unlock(&s->lock);
    /* The server may be freed from here on. */
}

static void *connection_main(void *arg) {
    struct h2_conn *c = arg;
    if (tls_handshake(c) == 0 && session_setup(c) == 0) serve(c);
    connection_end(c, 1);
    return NULL;
}

/* MARK: accepting */

static void start_connection(mw_h2_server *s, int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct h2_conn *c = calloc(1, sizeof *c);
    int wake = c ? eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC) : -1;
    if (!c || wake < 0) {
        server_log(s, 2, 0, "cannot set up a connection: out of memory or descriptors");
        free(c);
        close(fd);
        return;
    }
    c->server = s;
    c->fd = fd;
    c->wake_fd = wake;
    c->id = atomic_fetch_add(&s->accepted, 1) + 1;
    atomic_fetch_add(&s->open, 1);

    pthread_mutex_lock(&s->lock);
    c->next = s->connections;
    if (s->connections) s->connections->prev = c;
    s->connections = c;
    s->threads++;
    pthread_mutex_unlock(&s->lock);

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    int rc = pthread_create(&thread, &attr, connection_main, c);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        server_log(s, 2, c->id, "cannot start a connection thread: %s", strerror(rc));
        connection_end(c, 0);
    }
}

static void *accept_main(void *arg) {
    mw_h2_server *s = arg;
    for (;;) {
        struct pollfd p[2] = {{s->listen_fd, POLLIN, 0}, {s->stop_fd, POLLIN, 0}};
        int r = poll(p, 2, -1);
        if (r < 0) {
            if (errno == EINTR) continue;
            server_log(s, 2, 0, "poll on the listener failed: %s", strerror(errno));
            return NULL;
        }
        if (p[1].revents) return NULL;
        if (!(p[0].revents & POLLIN)) continue;
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == ENOBUFS) {
                server_log(s, 2, 0, "accept failed: %s", strerror(errno));
                struct timespec pause = {0, 10 * 1000000};
                nanosleep(&pause, NULL);
            }
            continue;
        }
        start_connection(s, fd);
    }
}

/* MARK: TLS context */

static int select_h2(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                     unsigned int inlen, void *arg) {
    (void)ssl;
    (void)arg;
    for (unsigned int i = 0; i < inlen;) {
        unsigned int len = in[i];
        if (i + 1 + len > inlen) break;
        if (len == 2 && memcmp(in + i + 1, "h2", 2) == 0) {
            *out = in + i + 1;
            *outlen = 2;
            return SSL_TLSEXT_ERR_OK;
        }
        i += 1 + len;
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL; /* no_application_protocol */
}

static SSL_CTX *make_tls_context(const char *certificate_file, const char *private_key_file, char *error, size_t error_len) {
    char err[256];
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        set_error(error, error_len, "cannot create a TLS context: %s", mw_h2_tls_error_text(err, sizeof err));
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (SSL_CTX_use_certificate_chain_file(ctx, certificate_file) != 1) {
        set_error(error, error_len, "cannot load the TLS certificate: %s", mw_h2_tls_error_text(err, sizeof err));
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, private_key_file, SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
        set_error(error, error_len, "cannot load the TLS key, or it does not match the certificate: %s",
                  mw_h2_tls_error_text(err, sizeof err));
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_alpn_select_cb(ctx, select_h2, NULL);
    return ctx;
}

/* MARK: public API */

static int open_listener(const char *host, uint16_t port, uint16_t *bound, char *error, size_t error_len) {
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    socklen_t addr_len;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        addr_len = sizeof *v4;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        addr_len = sizeof *v6;
    } else {
        set_error(error, error_len, "listen address %s is not an IPv4 or IPv6 literal", host);
        return -1;
    }
    int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        set_error(error, error_len, "socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&addr, addr_len) != 0 || listen(fd, 512) != 0) {
        set_error(error, error_len, "cannot listen: %s", strerror(errno));
        close(fd);
        return -1;
    }
    socklen_t len = sizeof addr;
    if (getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        set_error(error, error_len, "getsockname: %s", strerror(errno));
        close(fd);
        return -1;
    }
    *bound = ntohs(addr.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
    return fd;
}

mw_h2_server *mw_h2_server_start(const mw_h2_server_config *config, char *error, size_t error_len) {
    if (!config || !config->host || !config->certificate_file || !config->private_key_file || !config->on_request ||
        config->max_concurrent_streams == 0) {
        set_error(error, error_len, "incomplete server configuration");
        return NULL;
    }
    mw_h2_server *s = calloc(1, sizeof *s);
    if (!s) {
        set_error(error, error_len, "out of memory");
        return NULL;
    }
    s->listen_fd = s->stop_fd = -1;
    s->max_body_bytes = config->max_body_bytes;
    s->require_alpn = config->require_alpn;
    atomic_init(&s->max_concurrent_streams, config->max_concurrent_streams);
    s->on_request = config->on_request;
    s->on_log = config->on_log;
    s->ctx = config->ctx;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->idle, NULL);

    s->tls = make_tls_context(config->certificate_file, config->private_key_file, error, error_len);
    if (!s->tls) goto fail;
    s->listen_fd = open_listener(config->host, config->port, &s->port, error, error_len);
    if (s->listen_fd < 0) goto fail;
    s->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->stop_fd < 0) {
        set_error(error, error_len, "eventfd: %s", strerror(errno));
        goto fail;
    }
    /* Threads inherit this mask: see the file comment. */
    sigset_t blocked, previous;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGPIPE);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &blocked, &previous);
    int rc = pthread_create(&s->accept_thread, NULL, accept_main, s);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (rc != 0) {
        set_error(error, error_len, "cannot start the accept thread: %s", strerror(rc));
        goto fail;
    }
    return s;
fail:
    if (s->listen_fd >= 0) close(s->listen_fd);
    if (s->stop_fd >= 0) close(s->stop_fd);
    if (s->tls) SSL_CTX_free(s->tls);
    pthread_cond_destroy(&s->idle);
    pthread_mutex_destroy(&s->lock);
    free(s);
    return NULL;
}

uint16_t mw_h2_server_port(const mw_h2_server *s) { return s->port; }

void mw_h2_server_set_max_concurrent_streams(mw_h2_server *s, uint32_t value) {
    if (value > 0) atomic_store(&s->max_concurrent_streams, value);
}

unsigned int mw_h2_server_goaway(mw_h2_server *s, uint64_t connection_id) {
    unsigned int asked = 0;
    pthread_mutex_lock(&s->lock);
    for (struct h2_conn *c = s->connections; c; c = c->next) {
        if (connection_id != 0 && c->id != connection_id) continue;
        atomic_store(&c->goaway_requested, 1);
        uint64_t one = 1;
        if (write(c->wake_fd, &one, sizeof one) < 0) { /* the counter cannot overflow here */ }
        asked++;
    }
    pthread_mutex_unlock(&s->lock);
    return asked;
}

uint64_t mw_h2_server_connections_accepted(const mw_h2_server *s) { return atomic_load(&s->accepted); }
uint64_t mw_h2_server_connections_open(const mw_h2_server *s) { return atomic_load(&s->open); }

void mw_h2_server_stop(mw_h2_server *s) {
    if (!s) return;
    atomic_store(&s->stopping, 1);
    uint64_t one = 1;
    if (write(s->stop_fd, &one, sizeof one) < 0) { /* a fresh eventfd accepts one write */ }
    pthread_join(s->accept_thread, NULL);
    pthread_mutex_lock(&s->lock);
    while (s->threads > 0) pthread_cond_wait(&s->idle, &s->lock);
    pthread_mutex_unlock(&s->lock);
    close(s->listen_fd);
    close(s->stop_fd);
    SSL_CTX_free(s->tls);
    pthread_cond_destroy(&s->idle);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
