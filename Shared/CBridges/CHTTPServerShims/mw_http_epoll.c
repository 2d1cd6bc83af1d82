/*
 * Mailwake's own HTTP/1.1 engine: see include/mw_http_server.h for the contract.
 *
 * Why it exists (docs/dependencies.md, "The relay's intake engine"): with
 * libmicrohttpd every request suspends and resumes its connection, which
 * costs four system calls and a wake-up of the daemon thread besides the TLS
 * record's recv and send. Here a connection stays registered, edge-triggered,
 * for reading and writing from accept to close: a dispatched request simply
 * leaves its bytes unread, and answers reach the I/O thread through one
 * eventfd write per batch.
 *
 * Shape: `thread_pool_size` I/O threads, each with an epoll set holding the
 * shared listening socket (EPOLLEXCLUSIVE), its eventfd and its connections.
 * One request per connection at a time; pipelined bytes wait in the buffer.
 * The parser is strict (RFC 9112): CRLF line ends, token methods and header
 * names, no whitespace before a colon, no obs-fold, one Host, Content-Length
 * digits only, Transfer-Encoding only `chunked` and never with a
 * Content-Length (request smuggling), HTTP/1.0 and 1.1 only.
 *
 * Request texts point into the connection's input buffer (NUL-terminated in
 * place); a Content-Length body is not copied. Nothing reads into that buffer
 * until the request is answered, so the pointers stay valid until then.
 */
#define _GNU_SOURCE /* accept4 */
#include "mw_http_engines.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#define MAX_EVENTS 64
/* How much of a request body's or header's first buffer is allocated before bytes arrive. */
#define FIRST_BUFFER ((size_t)16384)
/* A chunk-size line or a trailer line longer than this is refused. */
#define MAX_CHUNK_LINE ((size_t)1024)
#define MAX_TRAILER_BYTES ((size_t)8192)
/* Empty lines tolerated before a request line (RFC 9112 §2.2 asks for at least one). */
#define MAX_LEADING_EMPTY_LINES 4
/* After an answer that closes the connection, unread request bytes are read and dropped (so the
 * close does not reset the answer away) for at most this long and this much. */
#define LINGER_MS 2000
#define LINGER_BYTES(server) ((server)->max_body_bytes * 4 + 65536)
/* A TLS connection quiet this long gives its record buffers back at the next sweep (every 250 ms). */
#define TLS_BUFFERS_IDLE_MS 250

enum conn_state {
    CONN_READING = 0, /* reading and parsing a request */
    CONN_DISPATCHED,  /* a request is with Swift; no reads */
    CONN_WRITING,     /* an answer is being written */
    CONN_LINGERING    /* answered with close: dropping unread bytes until EOF, a cap or a timeout */
};

enum body_mode { BODY_NONE = 0, BODY_LENGTH, BODY_CHUNKED };
enum chunk_state { CHUNK_SIZE = 0, CHUNK_DATA, CHUNK_DATA_END, CHUNK_TRAILER, CHUNK_DONE };

struct ep_thread;
struct ep_conn;

struct mw_http_request {
    int engine; /* MW_HTTP_ENGINE_EPOLL: first, for the dispatch */
    struct ep_conn *conn;
    const char *method;
    const char *target;
    const char *version;
    size_t header_count;
    char **header_names; /* one allocation: names then values */
    char **header_values;
    const uint8_t *body;
    size_t body_length;
    unsigned int rejection;
    /* The answer, built by mw_ep_request_respond on the caller's thread. */
    uint8_t *response;
    size_t response_length;
    int close_after;
    struct mw_http_request *next_answered;
};

struct ep_conn {
    struct ep_thread *thread;
    int fd;
    SSL *ssl;
    enum conn_state state;
    int dead;             /* the socket is closed; the struct waits for its dispatched request's answer */
    int readable;         /* edge seen and not yet read to EAGAIN */
    int writable;
    int read_wants_write; /* TLS needs the socket writable to go on reading */
    int write_wants_read;
    char client_address[64];
    struct sockaddr_storage peer;
    uint64_t last_activity_ms;
    uint64_t linger_until_ms;
    size_t lingered;
    /* Input: bytes read and not yet consumed by a finished request. */
    uint8_t *in;
    size_t in_len, in_cap;
    /* Parse state of the request being read. */
    size_t header_end; /* offset past the blank line, 0 while headers are incomplete */
    size_t head_scan;  /* where the search for the blank line goes on */
    size_t lead;       /* bytes of empty lines before the request line */
    uint64_t request_started_ms; /* when the first byte of the request being read arrived */
    int peer_closed;   /* EPOLLRDHUP seen: read on to the EOF */
    enum body_mode body_mode;
    size_t content_length;
    int keep_alive;
    int expect_continue; /* 100-continue still to be sent */
    int head;            /* a HEAD request: the answer has no body */
    enum chunk_state chunk_state;
    size_t chunk_scan;      /* offset in `in` the chunk decoder has reached */
    size_t chunk_remaining; /* data bytes left in the current chunk */
    size_t trailer_bytes;
    uint8_t *chunked_body;
    size_t chunked_len, chunked_cap;
    /* Output. */
    uint8_t *out;
    size_t out_len, out_off;
    int close_after_write;
    struct mw_http_request request;
    struct ep_conn *prev, *next;
};

struct ep_thread {
    mw_http_server *server;
    pthread_t tid;
    int epfd;
    int wake_fd;
    pthread_mutex_t lock;
    struct mw_http_request *answered_head, *answered_tail;
    struct ep_conn *conns;
    uint64_t last_sweep_ms;
};

struct mw_http_server {
    int engine; /* MW_HTTP_ENGINE_EPOLL: first, for the dispatch */
    mw_http_request_cb on_request;
    mw_http_log_cb on_log;
    void *ctx;
    size_t max_body_bytes;
    size_t max_header_bytes;
    unsigned int connection_limit;
    unsigned int per_ip_limit;
    unsigned int idle_timeout_seconds;
    SSL_CTX *tls;
    int listen_fd;
    uint16_t port;
    unsigned int thread_count;
    struct ep_thread *threads;
    atomic_int quiesced;
    atomic_int stopping;
    atomic_int connections;
    atomic_int dispatched; /* requests handed to Swift and not yet answered */
    atomic_int queued;     /* answers given and not yet taken by their I/O thread */
    atomic_int writing;    /* connections with bytes not yet written to the end */
    _Atomic uint64_t last_tls_log_ms;
    atomic_int tls_failures_unlogged;
    pthread_mutex_t ip_lock;
    struct ip_count {
        struct sockaddr_storage addr;
        unsigned int count;
    } *ip_counts;
    size_t ip_count_len, ip_count_cap;
};

/* Markers in epoll_event.data.ptr for the two non-connection descriptors. */
static char listen_marker, wake_marker;

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void server_log(mw_http_server *s, const char *fmt, ...) {
    if (!s->on_log) return;
    char message[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    s->on_log(s->ctx, message);
}

static void set_error(char *error, size_t len, const char *fmt, ...) {
    if (!error || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error, len, fmt, ap);
    va_end(ap);
}

/* MARK: Per-address connection counts */

static int same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b) {
    if (a->ss_family != b->ss_family) return 0;
    if (a->ss_family == AF_INET)
        return memcmp(&((const struct sockaddr_in *)a)->sin_addr, &((const struct sockaddr_in *)b)->sin_addr, sizeof(struct in_addr)) == 0;
    if (a->ss_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
                      sizeof(struct in6_addr)) == 0;
    return 0;
}

/* Counts a connection from `addr`; 0 when the address is at its limit (nothing counted). */
static int ip_acquire(mw_http_server *s, const struct sockaddr_storage *addr) {
    if (!s->per_ip_limit) return 1;
    int ok = 0;
    pthread_mutex_lock(&s->ip_lock);
    size_t i = 0;
    for (; i < s->ip_count_len; i++)
        if (same_address(&s->ip_counts[i].addr, addr)) break;
    if (i < s->ip_count_len) {
        if (s->ip_counts[i].count < s->per_ip_limit) {
            s->ip_counts[i].count++;
            ok = 1;
        }
    } else {
        if (s->ip_count_len == s->ip_count_cap) {
            size_t cap = s->ip_count_cap ? s->ip_count_cap * 2 : 16;
            struct ip_count *grown = realloc(s->ip_counts, cap * sizeof *grown);
            if (grown) {
                s->ip_counts = grown;
                s->ip_count_cap = cap;
            }
        }
        if (s->ip_count_len < s->ip_count_cap) {
            s->ip_counts[s->ip_count_len].addr = *addr;
            s->ip_counts[s->ip_count_len].count = 1;
            s->ip_count_len++;
            ok = 1;
        }
    }
    pthread_mutex_unlock(&s->ip_lock);
    return ok;
}

static void ip_release(mw_http_server *s, const struct sockaddr_storage *addr) {
    if (!s->per_ip_limit) return;
    pthread_mutex_lock(&s->ip_lock);
    for (size_t i = 0; i < s->ip_count_len; i++) {
        if (!same_address(&s->ip_counts[i].addr, addr)) continue;
        if (--s->ip_counts[i].count == 0) s->ip_counts[i] = s->ip_counts[--s->ip_count_len];
        break;
    }
    pthread_mutex_unlock(&s->ip_lock);
}

/* MARK: Connections */

/* Drops the output buffer once it is written (or the connection goes). */
static void conn_clear_output(struct ep_conn *c) {
    if (!c->out) return;
    free(c->out);
    c->out = NULL;
    c->out_len = c->out_off = 0;
    atomic_fetch_sub(&c->thread->server->writing, 1);
}

/* Queues `data` (taken) after whatever is still unwritten. 0 when out of memory. */
static int conn_queue_output(struct ep_conn *c, uint8_t *data, size_t length) {
    if (c->out && c->out_off < c->out_len) {
        size_t left = c->out_len - c->out_off;
        uint8_t *joined = malloc(left + length);
        if (!joined) {
            free(data);
            return 0;
        }
        memcpy(joined, c->out + c->out_off, left);
        memcpy(joined + left, data, length);
        free(data);
        data = joined;
        length += left;
    }
    conn_clear_output(c);
    atomic_fetch_add(&c->thread->server->writing, 1);
    c->out = data;
    c->out_len = length;
    c->out_off = 0;
    return 1;
}


static void conn_unlink(struct ep_conn *c) {
    struct ep_thread *t = c->thread;
    if (c->prev) c->prev->next = c->next;
    else if (t->conns == c) t->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

static void conn_close_socket(struct ep_conn *c) {
    if (c->fd < 0) return;
    if (c->ssl) {
        SSL_free(c->ssl);
        c->ssl = NULL;
    }
    /* Out of the epoll set explicitly: close alone leaves it registered while a child forked elsewhere in the
     * process still holds a copy of the descriptor (until its exec), and its events would name a freed connection. */
    epoll_ctl(c->thread->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    mw_http_server *s = c->thread->server;
    ip_release(s, &c->peer);
    atomic_fetch_sub(&s->connections, 1);
}

static void conn_free(struct ep_conn *c) {
    conn_close_socket(c);
    conn_unlink(c);
    conn_clear_output(c);
    free(c->request.response);
    free(c->in);
    free(c->chunked_body);
    free(c->request.header_names);
    free(c);
}

/* Closes the connection; while its request is with Swift the struct stays until the answer arrives. */
static void conn_drop(struct ep_conn *c) {
    if (c->state == CONN_DISPATCHED) {
        conn_close_socket(c);
        c->dead = 1;
        return;
    }
    conn_free(c);
}

/* MARK: Socket I/O (plain or TLS) */

enum io_result { IO_OK = 1, IO_AGAIN = 0, IO_CLOSED = -1, IO_FAILED = -2 };

/* A receive of `got` bytes where `asked` were room: short of it, the socket is drained, and the next segment brings a
 * new edge, so the connection is not read again (to EAGAIN) until then. A FIN already seen brings none: then read on
 * to the EOF. */
static void note_receive(struct ep_conn *c, size_t got, size_t asked) {
    if (got < asked && !c->peer_closed) c->readable = 0;
}

/* The TLS socket BIO's callback: note_receive for each of OpenSSL's receives. Reading ahead, OpenSSL asks for
 * all its room for a record's header, for exactly the missing bytes of a body. Bytes OpenSSL already holds are
 * SSL_has_pending's (OpenSSL 3.0, Debian 12's; from 3.2 a key change can move leftover bytes where SSL_has_pending
 * does not look, which only a TLS 1.2 client negotiating a small maximum fragment length and sending early data
 * behind its Finished could arrange). */
static long note_short_read(BIO *bio, int oper, const char *argp, size_t len, int argi, long argl, int ret, size_t *processed) {
    (void)argp;
    (void)argi;
    (void)argl;
    if (oper == (BIO_CB_READ | BIO_CB_RETURN) && ret > 0 && processed) {
        struct ep_conn *c = (struct ep_conn *)BIO_get_callback_arg(bio);
        if (c) note_receive(c, *processed, len);
    }
    return ret;
}

/* Reads once into buf; IO_OK with *n > 0, IO_AGAIN, IO_CLOSED at EOF, IO_FAILED. */
static enum io_result conn_read(struct ep_conn *c, uint8_t *buf, size_t len, size_t *n) {
    *n = 0;
    if (!c->ssl) {
        ssize_t r = recv(c->fd, buf, len, 0);
        if (r > 0) {
            *n = (size_t)r;
            note_receive(c, *n, len);
            return IO_OK;
        }
        if (r == 0) return IO_CLOSED;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            c->readable = 0;
            return IO_AGAIN;
        }
        if (errno == EINTR) return IO_AGAIN;
        return IO_FAILED;
    }
    ERR_clear_error();
    int r = SSL_read_ex(c->ssl, buf, len, n);
    if (r == 1) return IO_OK;
    int e = SSL_get_error(c->ssl, 0);
    switch (e) {
    case SSL_ERROR_WANT_READ: c->readable = 0; return IO_AGAIN;
    case SSL_ERROR_WANT_WRITE: c->read_wants_write = 1; c->writable = 0; return IO_AGAIN;
    case SSL_ERROR_ZERO_RETURN: return IO_CLOSED;
    default: {
        if (!SSL_is_init_finished(c->ssl)) {
            char reason[160];
            unsigned long code = ERR_peek_error();
            if (code) ERR_error_string_n(code, reason, sizeof reason);
            else snprintf(reason, sizeof reason, "%s", e == SSL_ERROR_SYSCALL ? "connection closed" : "unknown");
            mw_http_server *s = c->thread->server;
            uint64_t now = now_ms(), last = atomic_load(&s->last_tls_log_ms);
            /* At most one line a second, however many clients fail: a client must not be able to flood the log. */
            if (now - last >= 1000 && atomic_compare_exchange_strong(&s->last_tls_log_ms, &last, now)) {
                int more = atomic_exchange(&s->tls_failures_unlogged, 0);
                server_log(s, "TLS handshake with %s failed: %s (%d more failures since the last report)", c->client_address, reason, more);
            } else {
                atomic_fetch_add(&s->tls_failures_unlogged, 1);
            }
        }
        ERR_clear_error();
        return IO_FAILED;
    }
    }
}

/* Writes what is pending in c->out; IO_OK when all of it is written, IO_AGAIN, IO_FAILED. */
static enum io_result conn_flush(struct ep_conn *c) {
    while (c->out_off < c->out_len) {
        size_t left = c->out_len - c->out_off, n = 0;
        if (!c->ssl) {
            ssize_t w = send(c->fd, c->out + c->out_off, left, MSG_NOSIGNAL);
            if (w < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK) {
                    c->writable = 0;
                    return IO_AGAIN;
                }
                if (errno == EINTR) continue;
                return IO_FAILED;
            }
            n = (size_t)w;
        } else {
            ERR_clear_error();
            if (SSL_write_ex(c->ssl, c->out + c->out_off, left, &n) != 1) {
                int e = SSL_get_error(c->ssl, 0);
                if (e == SSL_ERROR_WANT_WRITE) {
                    c->writable = 0;
                    return IO_AGAIN;
                }
                if (e == SSL_ERROR_WANT_READ) {
                    c->write_wants_read = 1;
                    c->readable = 0;
                    return IO_AGAIN;
                }
                ERR_clear_error();
                return IO_FAILED;
            }
        }
        c->out_off += n;
        c->last_activity_ms = now_ms();
    }
    return IO_OK;
}

/* MARK: Parsing (RFC 9112, strictly) */

static int is_tchar(uint8_t ch) {
    if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) return 1;
    return ch != 0 && strchr("!#$%&'*+-.^_`|~", ch) != NULL;
}

/* A field value's bytes: visible ASCII, space, tab and obs-text; no other control. */
static int is_field_byte(uint8_t ch) { return ch == '\t' || (ch >= 0x20 && ch != 0x7F); }

/* Offset past the first CRLF at or after `from` in [from, end), or 0 when there is none yet. */
static size_t find_crlf(const uint8_t *buf, size_t from, size_t end) {
    for (size_t i = from; i + 1 < end; i++)
        if (buf[i] == '\r' && buf[i + 1] == '\n') return i + 2;
    return 0;
}

/* Whether the comma-separated list `value` holds `token` (case-insensitively). */
static int list_has_token(const char *value, const char *token) {
    size_t n = strlen(token);
    const char *p = value;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',') p++;
        const char *start = p;
        while (*p && *p != ',') p++;
        const char *end = p;
        while (end > start && (end[-1] == ' ' || end[-1] == '\t')) end--;
        if ((size_t)(end - start) == n && strncasecmp(start, token, n) == 0) return 1;
    }
    return 0;
}

/* Parses the request line and headers in c->in[0, header_end), in place. Returns 0, or the status of the refusal. */
static unsigned int parse_head(struct ep_conn *c) {
    struct mw_http_request *r = &c->request;
    char *buf = (char *)c->in;
    size_t end = c->header_end;
    size_t pos = 0;
    /* RFC 9112 §2.2: an empty line before the request line is ignored. */
    while (pos + 1 < end && buf[pos] == '\r' && buf[pos + 1] == '\n') pos += 2;
    size_t line_end = find_crlf(c->in, pos, end);
    if (!line_end) return 400;
    /* method SP target SP version */
    size_t i = pos;
    while (i < line_end - 2 && is_tchar((uint8_t)buf[i])) i++;
    if (i == pos || buf[i] != ' ') return 400;
    buf[i] = 0;
    r->method = buf + pos;
    size_t t = ++i;
    while (i < line_end - 2 && (uint8_t)buf[i] > 0x20 && (uint8_t)buf[i] < 0x7F) i++;
    if (i == t || buf[i] != ' ') return 400;
    buf[i] = 0;
    r->target = buf + t;
    size_t v = ++i;
    if (line_end - 2 - v != 8 || memcmp(buf + v, "HTTP/1.", 7) != 0) return 400;
    if (buf[v + 7] != '0' && buf[v + 7] != '1') return (buf[v + 7] >= '0' && buf[v + 7] <= '9') ? 505 : 400;
    buf[line_end - 2] = 0;
    r->version = buf + v;
    c->head = strcmp(r->method, "HEAD") == 0;
    int http11 = buf[v + 7] == '1';

    /* Count the header lines, then split them in place. */
    size_t count = 0;
    for (size_t p = line_end; p < end - 2;) {
        size_t next = find_crlf(c->in, p, end);
        if (!next) return 400;
        count++;
        p = next;
    }
    size_t slots = count ? count : 1;
    char **block = malloc(2 * slots * sizeof(char *));
    if (!block) return 503;
    r->header_names = block;
    r->header_values = block + slots;
    r->header_count = 0;
    int hosts = 0, lengths = 0, chunked = 0, encodings = 0, close_token = 0, keep_alive_token = 0, expect_continue = 0;
    size_t content_length = 0;
    for (size_t p = line_end; p < end - 2;) {
        size_t next = find_crlf(c->in, p, end);
        size_t stop = next - 2;
        if (buf[p] == ' ' || buf[p] == '\t') return 400; /* obs-fold */
        size_t colon = p;
        while (colon < stop && is_tchar((uint8_t)buf[colon])) colon++;
        if (colon == p || colon == stop || buf[colon] != ':') return 400; /* empty name, or whitespace before the colon */
        size_t vs = colon + 1, ve = stop;
        while (vs < ve && (buf[vs] == ' ' || buf[vs] == '\t')) vs++;
        while (ve > vs && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t')) ve--;
        for (size_t k = vs; k < ve; k++)
            if (!is_field_byte((uint8_t)buf[k])) return 400;
        buf[colon] = 0;
        buf[ve] = 0;
        const char *name = buf + p, *value = buf + vs;
        r->header_names[r->header_count] = (char *)name;
        r->header_values[r->header_count] = (char *)value;
        r->header_count++;
        if (strcasecmp(name, "host") == 0) {
            hosts++;
        } else if (strcasecmp(name, "content-length") == 0) {
            lengths++;
            if (!*value) return 400;
            size_t n = 0;
            for (const char *d = value; *d; d++) {
                if (*d < '0' || *d > '9') return 400;
                if (n > (SIZE_MAX - 9) / 10) return 413;
                n = n * 10 + (size_t)(*d - '0');
            }
            content_length = n;
        } else if (strcasecmp(name, "transfer-encoding") == 0) {
            encodings++;
            if (strcasecmp(value, "chunked") != 0) return 501;
            chunked = 1;
        } else if (strcasecmp(name, "connection") == 0) {
            if (list_has_token(value, "close")) close_token = 1;
            if (list_has_token(value, "keep-alive")) keep_alive_token = 1;
        } else if (strcasecmp(name, "expect") == 0) {
            if (strcasecmp(value, "100-continue") != 0) return 417;
            expect_continue = 1;
        }
        p = next;
    }
    if (http11 && hosts != 1) return 400;
    if (hosts > 1 || lengths > 1 || encodings > 1) return 400;
    if (chunked && (lengths || !http11)) return 400; /* both framings: refused, never guessed (smuggling) */
    c->keep_alive = http11 ? !close_token : (keep_alive_token && !close_token);
    if (chunked) {
        c->body_mode = BODY_CHUNKED;
        c->chunk_state = CHUNK_SIZE;
        c->chunk_scan = c->header_end;
    } else if (lengths && content_length > 0) {
        c->body_mode = BODY_LENGTH;
        c->content_length = content_length;
        if (content_length > c->thread->server->max_body_bytes) return 413;
    } else {
        c->body_mode = BODY_NONE;
    }
    c->expect_continue = expect_continue && c->body_mode != BODY_NONE;
    return 0;
}

/* Decodes the chunks that have arrived. 1 when the body is complete, 0 for more bytes, or -status. */
static int decode_chunks(struct ep_conn *c) {
    mw_http_server *s = c->thread->server;
    while (c->chunk_scan < c->in_len || c->chunk_state == CHUNK_DONE) {
        switch (c->chunk_state) {
        case CHUNK_SIZE: {
            size_t next = find_crlf(c->in, c->chunk_scan, c->in_len);
            if (!next) return (c->in_len - c->chunk_scan > MAX_CHUNK_LINE) ? -400 : 0;
            size_t p = c->chunk_scan, size = 0, digits = 0;
            for (; p < next - 2; p++) {
                uint8_t ch = c->in[p];
                int d = (ch >= '0' && ch <= '9') ? ch - '0' : (ch >= 'a' && ch <= 'f') ? ch - 'a' + 10
                                                          : (ch >= 'A' && ch <= 'F') ? ch - 'A' + 10 : -1;
                if (d < 0) break;
                if (++digits > 15) return -413;
                size = size * 16 + (size_t)d;
            }
            if (!digits) return -400;
            if (p < next - 2 && c->in[p] != ';') return -400; /* only a chunk extension may follow the size */
            for (; p < next - 2; p++)
                if (!is_field_byte(c->in[p])) return -400;
            c->chunk_scan = next;
            if (size == 0) {
                c->chunk_state = CHUNK_TRAILER;
                break;
            }
            if (size > s->max_body_bytes - c->chunked_len) return -413;
            c->chunk_remaining = size;
            c->chunk_state = CHUNK_DATA;
            break;
        }
        case CHUNK_DATA: {
            size_t n = c->in_len - c->chunk_scan;
            if (n > c->chunk_remaining) n = c->chunk_remaining;
            if (c->chunked_len + n > c->chunked_cap) {
                size_t cap = c->chunked_cap ? c->chunked_cap : 1024;
                while (cap < c->chunked_len + n) cap *= 2;
                uint8_t *grown = realloc(c->chunked_body, cap);
                if (!grown) return -503;
                c->chunked_body = grown;
                c->chunked_cap = cap;
            }
            memcpy(c->chunked_body + c->chunked_len, c->in + c->chunk_scan, n);
            c->chunked_len += n;
            c->chunk_scan += n;
            c->chunk_remaining -= n;
            if (c->chunk_remaining == 0) c->chunk_state = CHUNK_DATA_END;
            break;
        }
        case CHUNK_DATA_END:
            if (c->in_len - c->chunk_scan < 2) return 0;
            if (c->in[c->chunk_scan] != '\r' || c->in[c->chunk_scan + 1] != '\n') return -400;
            c->chunk_scan += 2;
            c->chunk_state = CHUNK_SIZE;
            break;
        case CHUNK_TRAILER: {
            size_t next = find_crlf(c->in, c->chunk_scan, c->in_len);
            if (!next) return (c->in_len - c->chunk_scan > MAX_CHUNK_LINE) ? -400 : 0;
            size_t len = next - c->chunk_scan;
            c->chunk_scan = next;
            if (len == 2) {
                c->chunk_state = CHUNK_DONE;
                break;
            }
            c->trailer_bytes += len;
            if (c->trailer_bytes > MAX_TRAILER_BYTES) return -431;
            break; /* trailer fields are read and dropped */
        }
        case CHUNK_DONE: return 1;
        }
    }
    return 0;
}

/* MARK: Answers */

static const char *reason_phrase(unsigned int status) {
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Content";
    case 425: return "Too Early";
    case 428: return "Precondition Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
    }
}

/* The Date field's value for this second (RFC 9110 §6.6.1), cached per thread. */
static const char *http_date(void) {
    static __thread time_t cached_second = 0;
    static __thread char cached[40];
    time_t now = time(NULL);
    if (now != cached_second) {
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(cached, sizeof cached, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        cached_second = now;
    }
    return cached;
}

struct builder {
    uint8_t *data;
    size_t len, cap;
    int failed;
};

static void put(struct builder *b, const void *bytes, size_t n) {
    if (b->failed) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 512;
        while (cap < b->len + n) cap *= 2;
        uint8_t *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
}

static void put_str(struct builder *b, const char *s) { put(b, s, strlen(s)); }

/* Header names are tokens and values carry no CR, LF or NUL (no response splitting). */
static int safe_header(const char *name, const char *value) {
    if (!name || !value || !*name) return 0;
    for (const char *p = name; *p; p++)
        if (!is_tchar((uint8_t)*p)) return 0;
    for (const char *p = value; *p; p++)
        if (*p == '\r' || *p == '\n') return 0;
    return 1;
}

/* Builds a whole answer; NULL when out of memory. `*close_after` is set when the answer closes the connection. */
static uint8_t *build_response(unsigned int status, const char *const *names, const char *const *values, size_t count,
                               const uint8_t *body, size_t body_length, int head, int keep_alive, size_t *length,
                               int *close_after) {
    struct builder b = {0};
    char line[96];
    snprintf(line, sizeof line, "HTTP/1.1 %u %s\r\n", status, reason_phrase(status));
    put_str(&b, line);
    int close = !keep_alive;
    for (size_t i = 0; i < count; i++) {
        if (!safe_header(names[i], values[i])) continue;
        if (strcasecmp(names[i], "content-length") == 0 || strcasecmp(names[i], "transfer-encoding") == 0 ||
            strcasecmp(names[i], "date") == 0)
            continue; /* the engine frames the answer itself */
        if (strcasecmp(names[i], "connection") == 0) {
            if (list_has_token(values[i], "close")) close = 1;
            continue;
        }
        put_str(&b, names[i]);
        put(&b, ": ", 2);
        put_str(&b, values[i]);
        put(&b, "\r\n", 2);
    }
    put_str(&b, "Date: ");
    put_str(&b, http_date());
    put(&b, "\r\n", 2);
    int bodiless = status == 204 || status == 304 || (status >= 100 && status < 200);
    if (!bodiless) {
        snprintf(line, sizeof line, "Content-Length: %zu\r\n", body_length);
        put_str(&b, line);
    }
    if (close) put_str(&b, "Connection: close\r\n");
    put(&b, "\r\n", 2);
    if (!bodiless && !head && body_length) put(&b, body, body_length);
    if (b.failed) {
        free(b.data);
        return NULL;
    }
    *length = b.len;
    *close_after = close;
    return b.data;
}

/* MARK: The connection's state machine (on its I/O thread) */

static void conn_process(struct ep_conn *c);

/* Starts writing `response` (taken) and continues the connection. */
static void conn_send(struct ep_conn *c, uint8_t *response, size_t length, int close_after) {
    if (!conn_queue_output(c, response, length)) {
        conn_drop(c);
        return;
    }
    c->close_after_write = close_after;
    c->state = CONN_WRITING;
    conn_process(c);
}

/* Refuses what the client sent with an answer of the engine's own, then closes. */
static void conn_refuse(struct ep_conn *c, unsigned int status) {
    char body[160];
    int n = snprintf(body, sizeof body, "{\"type\":\"about:blank\",\"status\":%u,\"title\":\"%s\"}", status, reason_phrase(status));
    const char *names[] = {"Content-Type"};
    const char *values[] = {"application/problem+json"};
    size_t length = 0;
    int close_after = 1;
    uint8_t *response = build_response(status, names, values, 1, (const uint8_t *)body, (size_t)n, 0, 0, &length, &close_after);
    if (!response) {
        conn_drop(c);
        return;
    }
    conn_send(c, response, length, 1);
}

/* Hands the complete request (or an early 413) to Swift. */
static void conn_dispatch(struct ep_conn *c, unsigned int rejection) {
    struct mw_http_request *r = &c->request;
    r->rejection = rejection;
    if (rejection) {
        r->body = NULL;
        r->body_length = 0;
        c->keep_alive = 0;
    } else if (c->body_mode == BODY_LENGTH) {
        r->body = c->in + c->header_end;
        r->body_length = c->content_length;
    } else if (c->body_mode == BODY_CHUNKED) {
        r->body = c->chunked_body;
        r->body_length = c->chunked_len;
    } else {
        r->body = NULL;
        r->body_length = 0;
    }
    c->state = CONN_DISPATCHED;
    mw_http_server *s = c->thread->server;
    atomic_fetch_add(&s->dispatched, 1);
    s->on_request(s->ctx, r);
}

/* Drops the finished request's bytes and parse state; pipelined bytes move to the front. */
static void conn_reset_request(struct ep_conn *c) {
    size_t consumed = 0;
    if (c->body_mode == BODY_LENGTH) consumed = c->header_end + c->content_length;
    else if (c->body_mode == BODY_CHUNKED) consumed = c->chunk_scan;
    else consumed = c->header_end;
    if (consumed > c->in_len) consumed = c->in_len;
    if (c->in_len > consumed) memmove(c->in, c->in + consumed, c->in_len - consumed);
    c->in_len -= consumed;
    if (c->in_len == 0 && c->in_cap > 4 * FIRST_BUFFER) {
        free(c->in); /* a large body's buffer is not kept for an idle connection */
        c->in = NULL;
        c->in_cap = 0;
    }
    free(c->request.header_names);
    int engine = c->request.engine;
    memset(&c->request, 0, sizeof c->request);
    c->request.engine = engine;
    c->request.conn = c;
    c->header_end = 0;
    c->head_scan = 0;
    c->lead = 0;
    c->head = 0;
    c->keep_alive = 0;
    c->request_started_ms = c->in_len ? now_ms() : 0;
    c->body_mode = BODY_NONE;
    c->content_length = 0;
    c->expect_continue = 0;
    c->chunk_state = CHUNK_SIZE;
    c->chunk_scan = 0;
    c->chunk_remaining = 0;
    c->trailer_bytes = 0;
    c->chunked_len = 0;
    if (c->chunked_cap > 4 * FIRST_BUFFER) {
        free(c->chunked_body);
        c->chunked_body = NULL;
        c->chunked_cap = 0;
    }
}

/* Tries to finish the request from the buffered bytes. 1 when it was dispatched or refused, 0 for more bytes. */
static int conn_parse(struct ep_conn *c) {
    mw_http_server *s = c->thread->server;
    if (!c->header_end) {
        /* Empty lines before the request line are allowed (RFC 9112 §2.2) and are not the header's end. */
        while (c->lead + 1 < c->in_len && c->in[c->lead] == '\r' && c->in[c->lead + 1] == '\n' && c->head_scan <= c->lead) c->lead += 2;
        if (c->lead > MAX_LEADING_EMPTY_LINES * 2) {
            conn_refuse(c, 400);
            return 1;
        }
        size_t lead = c->lead;
        /* The search goes on where it stopped (a header sent a byte at a time is scanned once). */
        size_t i = c->head_scan > lead ? c->head_scan : lead;
        for (; i + 3 < c->in_len; i++) {
            if (c->in[i] == '\r' && c->in[i + 1] == '\n' && c->in[i + 2] == '\r' && c->in[i + 3] == '\n') {
                c->header_end = i + 4;
                break;
            }
            /* A line ended by LF alone would never reach a CRLF blank line: refused at once. */
            if (c->in[i + 1] == '\n' && c->in[i] != '\r') {
                conn_refuse(c, 400);
                return 1;
            }
        }
        c->head_scan = i;
        if (!c->header_end) {
            if (c->in_len >= s->max_header_bytes) {
                conn_refuse(c, 431);
                return 1;
            }
            return 0;
        }
        if (c->header_end > s->max_header_bytes) {
            conn_refuse(c, 431);
            return 1;
        }
        unsigned int refusal = parse_head(c);
        if (refusal == 413) {
            conn_dispatch(c, 413); /* Swift answers it in the service's words */
            return 1;
        }
        if (refusal) {
            conn_refuse(c, refusal);
            return 1;
        }
        int complete = c->body_mode == BODY_NONE || (c->body_mode == BODY_LENGTH && c->in_len - c->header_end >= c->content_length);
        if (c->expect_continue && !complete) {
            /* The client waits for leave to send its body (RFC 9110 §10.1.1). */
            static const char interim[] = "HTTP/1.1 100 Continue\r\n\r\n";
            uint8_t *copy = malloc(sizeof interim - 1);
            if (copy) memcpy(copy, interim, sizeof interim - 1);
            if (!copy || !conn_queue_output(c, copy, sizeof interim - 1) || conn_flush(c) == IO_FAILED) {
                conn_drop(c);
                return 1;
            }
            if (c->out_off == c->out_len) conn_clear_output(c);
        }
        c->expect_continue = 0;
    }
    if (c->body_mode == BODY_LENGTH) {
        if (c->in_len - c->header_end < c->content_length) return 0;
    } else if (c->body_mode == BODY_CHUNKED) {
        int done = decode_chunks(c);
        if (done == -413) {
            conn_dispatch(c, 413);
            return 1;
        }
        if (done < 0) {
            conn_refuse(c, (unsigned int)-done);
            return 1;
        }
        if (!done) return 0;
    }
    conn_dispatch(c, 0);
    return 1;
}

/* Turns the parsed request's text pointers into offsets in `in` (before the buffer moves). */
static void request_texts_to_offsets(struct ep_conn *c) {
    if (!c->header_end) return;
    struct mw_http_request *r = &c->request;
    const char *base = (const char *)c->in;
    r->method = (const char *)(uintptr_t)(r->method - base);
    r->target = (const char *)(uintptr_t)(r->target - base);
    r->version = (const char *)(uintptr_t)(r->version - base);
    for (size_t i = 0; i < r->header_count; i++) {
        r->header_names[i] = (char *)(uintptr_t)(r->header_names[i] - base);
        r->header_values[i] = (char *)(uintptr_t)(r->header_values[i] - base);
    }
}

/* Turns offsets back into pointers into `in` (after the buffer moved). */
static void request_texts_from_offsets(struct ep_conn *c) {
    if (!c->header_end) return;
    struct mw_http_request *r = &c->request;
    char *base = (char *)c->in;
    r->method = base + (uintptr_t)r->method;
    r->target = base + (uintptr_t)r->target;
    r->version = base + (uintptr_t)r->version;
    for (size_t i = 0; i < r->header_count; i++) {
        r->header_names[i] = base + (uintptr_t)r->header_names[i];
        r->header_values[i] = base + (uintptr_t)r->header_values[i];
    }
}

/* The most the input buffer may hold for the request being read. */
static size_t input_limit(const struct ep_conn *c) {
    mw_http_server *s = c->thread->server;
    if (!c->header_end) return s->max_header_bytes;
    if (c->body_mode == BODY_LENGTH) return c->header_end + c->content_length;
    /* Chunked: framing around at most max_body_bytes of data, decoded as it arrives (consumed bytes stay until the end). */
    return c->header_end + s->max_body_bytes + s->max_body_bytes / 2 + 65536;
}

/* Reads until the socket is drained, the buffer is at its limit or a request is complete. */
static void conn_read_requests(struct ep_conn *c) {
    for (;;) {
        if (c->in_len && conn_parse(c)) return;
        if (!c->readable && !(c->ssl && SSL_has_pending(c->ssl))) return;
        size_t limit = input_limit(c);
        if (c->in_len >= limit) {
            if (c->header_end) conn_dispatch(c, 413); /* chunk framing past its allowance: answered as the body limit */
            else conn_refuse(c, 431);
            return;
        }
        if (c->in_cap - c->in_len == 0 || !c->in) {
            size_t cap = c->in_cap ? c->in_cap * 2 : FIRST_BUFFER;
            if (cap > limit) cap = limit;
            if (cap < FIRST_BUFFER && limit >= FIRST_BUFFER) cap = FIRST_BUFFER;
            /* The parsed request's texts point into the buffer: moved with it as offsets. */
            request_texts_to_offsets(c);
            uint8_t *grown = realloc(c->in, cap);
            if (grown) {
                c->in = grown;
                c->in_cap = cap;
            }
            request_texts_from_offsets(c);
            if (!grown) {
                conn_drop(c);
                return;
            }
        }
        size_t room = c->in_cap - c->in_len;
        if (room > limit - c->in_len) room = limit - c->in_len;
        size_t n = 0;
        enum io_result r = conn_read(c, c->in + c->in_len, room, &n);
        if (r == IO_AGAIN) return;
        if (r != IO_OK) {
            conn_drop(c);
            return;
        }
        if (!c->in_len) c->request_started_ms = now_ms();
        c->in_len += n;
        c->last_activity_ms = now_ms();
    }
}

/* Reads and drops what the client still sends after an answer that closes. */
static void conn_linger(struct ep_conn *c) {
    uint8_t scratch[16384];
    for (;;) {
        if (!c->readable && !(c->ssl && SSL_has_pending(c->ssl))) return;
        size_t n = 0;
        enum io_result r = conn_read(c, scratch, sizeof scratch, &n);
        if (r == IO_AGAIN) return;
        if (r != IO_OK) {
            conn_free(c);
            return;
        }
        c->lingered += n;
        if (c->lingered > LINGER_BYTES(c->thread->server)) {
            conn_free(c);
            return;
        }
    }
}

static void conn_process(struct ep_conn *c) {
    /* A dispatched request's pending write may still be the 100 Continue. */
    if (c->out && c->out_off < c->out_len && (c->writable || c->write_wants_read)) {
        c->write_wants_read = 0;
        enum io_result w = conn_flush(c);
        if (w == IO_FAILED) {
            conn_drop(c);
            return;
        }
    }
    switch (c->state) {
    case CONN_READING:
        if (c->out && c->out_off == c->out_len) conn_clear_output(c);
        conn_read_requests(c);
        return;
    case CONN_DISPATCHED: return;
    case CONN_WRITING: {
        enum io_result w = conn_flush(c);
        if (w == IO_FAILED) {
            conn_drop(c);
            return;
        }
        if (w == IO_AGAIN) return;
        conn_clear_output(c);
        c->last_activity_ms = now_ms();
        if (c->close_after_write) {
            if (c->ssl) SSL_shutdown(c->ssl);
            shutdown(c->fd, SHUT_WR);
            c->state = CONN_LINGERING;
            c->linger_until_ms = now_ms() + LINGER_MS;
            c->readable = 1; /* whatever is buffered is dropped now */
            conn_linger(c);
            return;
        }
        conn_reset_request(c);
        c->state = CONN_READING;
        conn_read_requests(c);
        return;
    }
    case CONN_LINGERING: conn_linger(c); return;
    }
}

static void conn_on_event(struct ep_conn *c, uint32_t events) {
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) c->readable = 1;
    if (events & EPOLLRDHUP) c->peer_closed = 1;
    if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) c->writable = 1;
    if (c->read_wants_write && c->writable) {
        c->read_wants_write = 0;
        c->readable = 1;
    }
    if (c->write_wants_read && c->readable) c->writable = 1;
    if (c->state == CONN_DISPATCHED) {
        /* The client hung up while its request is with Swift: close now, free at the answer. */
        if (events & (EPOLLHUP | EPOLLERR)) conn_drop(c);
        else if (c->out) conn_process(c); /* the 100 Continue */
        return;
    }
    conn_process(c);
}

/* MARK: Accepting */

static void accept_connections(struct ep_thread *t) {
    mw_http_server *s = t->server;
    for (int i = 0; i < 64 && !atomic_load(&s->quiesced); i++) {
        struct sockaddr_storage peer;
        socklen_t peer_len = sizeof peer;
        int fd = accept4(s->listen_fd, (struct sockaddr *)&peer, &peer_len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EMFILE || errno == ENFILE) server_log(s, "cannot accept a connection: %s", strerror(errno));
            return; /* EAGAIN: another thread took it, or none is left */
        }
        if ((unsigned int)atomic_fetch_add(&s->connections, 1) >= s->connection_limit) {
            atomic_fetch_sub(&s->connections, 1);
            close(fd);
            continue;
        }
        if (!ip_acquire(s, &peer)) {
            atomic_fetch_sub(&s->connections, 1);
            close(fd);
            continue;
        }
        struct ep_conn *c = calloc(1, sizeof *c);
        if (!c) {
            ip_release(s, &peer);
            atomic_fetch_sub(&s->connections, 1);
            close(fd);
            continue;
        }
        c->thread = t;
        c->fd = fd;
        c->peer = peer;
        c->request.engine = MW_HTTP_ENGINE_EPOLL;
        c->request.conn = c;
        c->last_activity_ms = now_ms();
        if (peer.ss_family == AF_INET)
            inet_ntop(AF_INET, &((struct sockaddr_in *)&peer)->sin_addr, c->client_address, sizeof c->client_address);
        else if (peer.ss_family == AF_INET6)
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&peer)->sin6_addr, c->client_address, sizeof c->client_address);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (s->tls) {
            c->ssl = SSL_new(s->tls);
            if (!c->ssl || SSL_set_fd(c->ssl, fd) != 1) {
                SSL_free(c->ssl);
                c->ssl = NULL;
                ip_release(s, &peer);
                atomic_fetch_sub(&s->connections, 1);
                close(fd);
                free(c);
                continue;
            }
            SSL_set_accept_state(c->ssl);
            BIO *socket_bio = SSL_get_rbio(c->ssl);
            BIO_set_callback_ex(socket_bio, note_short_read);
            BIO_set_callback_arg(socket_bio, (char *)c);
        }
        c->next = t->conns;
        if (t->conns) t->conns->prev = c;
        t->conns = c;
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = c};
        if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            conn_free(c);
            continue;
        }
    }
}

/* MARK: The I/O thread */

static void take_answers(struct ep_thread *t) {
    /* One read zeroes the counter; a wake written after it makes the (level-triggered) descriptor readable again. */
    uint64_t value;
    if (read(t->wake_fd, &value, sizeof value) < 0) { /* EAGAIN: woken for answers another wake already took */
    }
    pthread_mutex_lock(&t->lock);
    struct mw_http_request *r = t->answered_head;
    t->answered_head = t->answered_tail = NULL;
    pthread_mutex_unlock(&t->lock);
    while (r) {
        struct mw_http_request *next = r->next_answered;
        r->next_answered = NULL;
        atomic_fetch_sub(&t->server->queued, 1);
        struct ep_conn *c = r->conn;
        uint8_t *response = r->response;
        r->response = NULL;
        if (c->dead || !response) {
            free(response);
            c->state = CONN_READING; /* no longer with Swift: conn_free may release it */
            conn_free(c);
        } else {
            conn_send(c, response, r->response_length, r->close_after);
        }
        r = next;
    }
}

/* True when neither TLS record buffer holds anything: the handshake is over, no record is buffered, and no record
 * body is half read. SSL_free_buffers checks the first two itself, but OpenSSL releases before 3.0.14 (CVE-2024-4741)
 * freed the buffer under a record whose header had been read and whose body had not yet come: "RB" is that state. */
static int tls_buffers_unused(SSL *ssl) {
    return SSL_is_init_finished(ssl) && !SSL_has_pending(ssl) && strcmp(SSL_rstate_string(ssl), "RB") != 0;
}

static void sweep_idle(struct ep_thread *t, uint64_t now) {
    mw_http_server *s = t->server;
    uint64_t idle_ms = (uint64_t)s->idle_timeout_seconds * 1000u;
    struct ep_conn *c = t->conns;
    while (c) {
        struct ep_conn *next = c->next;
        if (c->state == CONN_LINGERING) {
            if (now >= c->linger_until_ms) conn_free(c);
        } else if (c->state != CONN_DISPATCHED && idle_ms && now - c->last_activity_ms >= idle_ms) {
            conn_free(c);
        } else if (c->state == CONN_READING && idle_ms && c->in_len && now - c->request_started_ms >= idle_ms) {
            /* A request trickled a byte at a time keeps the idle timer fresh, not this one. */
            conn_free(c);
        } else if (c->ssl && c->state == CONN_READING && c->in_len == 0 && now - c->last_activity_ms >= TLS_BUFFERS_IDLE_MS &&
                   tls_buffers_unused(c->ssl)) {
            /* Quiet since about the last sweep: its TLS record buffers go back (none is allocated again until the
             * next byte arrives). */
            SSL_free_buffers(c->ssl);
        }
        c = next;
    }
}

static void *thread_main(void *arg) {
    struct ep_thread *t = arg;
    mw_http_server *s = t->server;
    struct epoll_event events[MAX_EVENTS];
    for (;;) {
        int n = epoll_wait(t->epfd, events, MAX_EVENTS, 250);
        if (n < 0 && errno != EINTR) break;
        int woken = 0;
        for (int i = 0; i < n; i++) {
            void *p = events[i].data.ptr;
            if (p == &listen_marker) accept_connections(t);
            else if (p == &wake_marker) woken = 1;
            else conn_on_event(p, events[i].events);
        }
        /* After the batch: an answer may free its connection, whose own event could still be in `events`. */
        if (woken) take_answers(t);
        uint64_t now = now_ms();
        if (now - t->last_sweep_ms >= 250) {
            t->last_sweep_ms = now;
            sweep_idle(t, now);
        }
        if (atomic_load(&s->stopping)) break;
    }
    return NULL;
}

/* MARK: TLS */

static SSL_CTX *make_tls_context(const char *certificate_pem, const char *private_key_pem, char *error, size_t error_len) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        set_error(error, error_len, "cannot create a TLS context");
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE |
                                 SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_TICKET);
    /* No SSL_MODE_RELEASE_BUFFERS: it frees and allocates both record buffers (about 17 KiB each) around every request
     * of a busy connection. sweep_idle gives them back once a connection has been quiet for a sweep instead. */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    /* TLS 1.3 sends two tickets after every handshake unless told not to; with no cache they would resume nothing. */
    SSL_CTX_set_num_tickets(ctx, 0);
    /* Whole socket reads, not a record header then its body: one recv per request; SSL_has_pending covers the rest. */
    SSL_CTX_set_read_ahead(ctx, 1);
    BIO *bio = BIO_new_mem_buf(certificate_pem, -1);
    X509 *leaf = bio ? PEM_read_bio_X509_AUX(bio, NULL, NULL, NULL) : NULL;
    int ok = leaf && SSL_CTX_use_certificate(ctx, leaf) == 1;
    X509_free(leaf);
    while (ok) { /* the rest of the chain */
        X509 *extra = PEM_read_bio_X509(bio, NULL, NULL, NULL);
        if (!extra) break;
        if (SSL_CTX_add0_chain_cert(ctx, extra) != 1) {
            X509_free(extra);
            ok = 0;
        }
    }
    BIO_free(bio);
    ERR_clear_error(); /* the chain ends with "no start line" */
    if (!ok) {
        set_error(error, error_len, "the TLS certificate is not a PEM certificate");
        SSL_CTX_free(ctx);
        return NULL;
    }
    bio = BIO_new_mem_buf(private_key_pem, -1);
    EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    ok = key && SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
    EVP_PKEY_free(key);
    ERR_clear_error();
    if (!ok) {
        set_error(error, error_len, "the TLS private key is not a PEM key matching the certificate");
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* MARK: The public engine functions */

static void server_free(mw_http_server *s) {
    if (s->threads) {
        for (unsigned int i = 0; i < s->thread_count; i++) {
            struct ep_thread *t = &s->threads[i];
            if (t->epfd >= 0) close(t->epfd);
            if (t->wake_fd >= 0) close(t->wake_fd);
            pthread_mutex_destroy(&t->lock);
        }
        free(s->threads);
    }
    if (s->listen_fd >= 0) close(s->listen_fd);
    if (s->tls) SSL_CTX_free(s->tls);
    pthread_mutex_destroy(&s->ip_lock);
    free(s->ip_counts);
    free(s);
}

mw_http_server *mw_ep_server_start(const mw_http_server_config *c, char *error, size_t error_len) {
    if (!c->on_request || !c->bind_address) {
        set_error(error, error_len, "incomplete server configuration");
        return NULL;
    }
    mw_http_server *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->engine = MW_HTTP_ENGINE_EPOLL;
    s->listen_fd = -1;
    pthread_mutex_init(&s->ip_lock, NULL);
    s->on_request = c->on_request;
    s->on_log = c->on_log;
    s->ctx = c->ctx;
    s->max_body_bytes = c->max_body_bytes;
    s->max_header_bytes = c->connection_memory_limit ? c->connection_memory_limit : 16384;
    s->connection_limit = c->connection_limit ? c->connection_limit : 1024;
    s->per_ip_limit = c->per_ip_connection_limit;
    s->idle_timeout_seconds = c->idle_timeout_seconds;
    s->thread_count = c->thread_pool_size ? c->thread_pool_size : 1;

    if (c->certificate_pem && c->private_key_pem) {
        s->tls = make_tls_context(c->certificate_pem, c->private_key_pem, error, error_len);
        if (!s->tls) goto fail;
    }
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    socklen_t addr_len;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
    if (inet_pton(AF_INET, c->bind_address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(c->port);
        addr_len = sizeof *v4;
    } else if (inet_pton(AF_INET6, c->bind_address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(c->port);
        addr_len = sizeof *v6;
    } else {
        set_error(error, error_len, "bind address is not an IPv4 or IPv6 literal");
        goto fail;
    }
    s->listen_fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->listen_fd < 0) {
        set_error(error, error_len, "socket: %s", strerror(errno));
        goto fail;
    }
    int one = 1;
    setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (addr.ss_family == AF_INET6) setsockopt(s->listen_fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(s->listen_fd, (struct sockaddr *)&addr, addr_len) != 0) {
        set_error(error, error_len, "bind %s:%u: %s", c->bind_address, c->port, strerror(errno));
        goto fail;
    }
    if (listen(s->listen_fd, 1024) != 0) {
        set_error(error, error_len, "listen: %s", strerror(errno));
        goto fail;
    }
    struct sockaddr_storage bound;
    socklen_t bound_len = sizeof bound;
    getsockname(s->listen_fd, (struct sockaddr *)&bound, &bound_len);
    s->port = ntohs(bound.ss_family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port : ((struct sockaddr_in6 *)&bound)->sin6_port);

    s->threads = calloc(s->thread_count, sizeof *s->threads);
    if (!s->threads) goto fail;
    for (unsigned int i = 0; i < s->thread_count; i++) {
        struct ep_thread *t = &s->threads[i];
        t->server = s;
        t->epfd = epoll_create1(EPOLL_CLOEXEC);
        t->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        pthread_mutex_init(&t->lock, NULL);
        if (t->epfd < 0 || t->wake_fd < 0) {
            set_error(error, error_len, "epoll or eventfd: %s", strerror(errno));
            s->thread_count = i + 1;
            goto fail;
        }
        struct epoll_event lev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &listen_marker};
        struct epoll_event wev = {.events = EPOLLIN, .data.ptr = &wake_marker};
        if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, s->listen_fd, &lev) != 0 || epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->wake_fd, &wev) != 0) {
            set_error(error, error_len, "epoll_ctl: %s", strerror(errno));
            s->thread_count = i + 1;
            goto fail;
        }
    }
    /* The I/O threads inherit this mask: a TLS write to a peer that is gone fails with EPIPE instead of raising
     * SIGPIPE (OpenSSL's socket BIO writes without MSG_NOSIGNAL), and the process's signals go to other threads. */
    sigset_t blocked, previous;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGPIPE);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &blocked, &previous);
    for (unsigned int i = 0; i < s->thread_count; i++) {
        if (pthread_create(&s->threads[i].tid, NULL, thread_main, &s->threads[i]) != 0) {
            pthread_sigmask(SIG_SETMASK, &previous, NULL);
            set_error(error, error_len, "cannot start an I/O thread");
            atomic_store(&s->stopping, 1);
            for (unsigned int k = 0; k < i; k++) pthread_join(s->threads[k].tid, NULL);
            goto fail;
        }
        char name[16];
        snprintf(name, sizeof name, "mw-ep-http-%u", i % 100);
        pthread_setname_np(s->threads[i].tid, name);
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    return s;
fail:
    server_free(s);
    return NULL;
}

uint16_t mw_ep_server_port(const mw_http_server *s) { return s->port; }

void mw_ep_server_quiesce(mw_http_server *s) {
    if (atomic_exchange(&s->quiesced, 1)) return;
    for (unsigned int i = 0; i < s->thread_count; i++) epoll_ctl(s->threads[i].epfd, EPOLL_CTL_DEL, s->listen_fd, NULL);
    /* New connections are refused from here; the descriptor is closed once the threads are joined. */
    shutdown(s->listen_fd, SHUT_RDWR);
}

int mw_ep_server_stop(mw_http_server *s, unsigned int wait_ms) {
    struct timespec pause = {0, 1000000};
    unsigned int waited = 0;
    for (; atomic_load(&s->dispatched) > 0 && waited < wait_ms; waited++) nanosleep(&pause, NULL);
    if (atomic_load(&s->dispatched) > 0) return 0; /* Swift still holds requests: leave the engine running */
    /* Let the last answers (the drain's, the 503s to stragglers) reach their clients first. */
    for (; (atomic_load(&s->queued) > 0 || atomic_load(&s->writing) > 0) && waited < wait_ms; waited++) nanosleep(&pause, NULL);
    mw_ep_server_quiesce(s);
    atomic_store(&s->stopping, 1);
    uint64_t one = 1;
    for (unsigned int i = 0; i < s->thread_count; i++)
        if (write(s->threads[i].wake_fd, &one, sizeof one) < 0) { /* a wake is already pending */
        }
    for (unsigned int i = 0; i < s->thread_count; i++) pthread_join(s->threads[i].tid, NULL);
    for (unsigned int i = 0; i < s->thread_count; i++) {
        struct ep_thread *t = &s->threads[i];
        while (t->conns) conn_free(t->conns);
    }
    server_free(s);
    return 1;
}

const char *mw_ep_request_method(const mw_http_request *r) { return r->method; }
const char *mw_ep_request_target(const mw_http_request *r) { return r->target; }
const char *mw_ep_request_version(const mw_http_request *r) { return r->version; }
const char *mw_ep_request_client_address(const mw_http_request *r) { return r->conn->client_address; }
size_t mw_ep_request_header_count(const mw_http_request *r) { return r->header_count; }
const char *mw_ep_request_header_name(const mw_http_request *r, size_t i) { return i < r->header_count ? r->header_names[i] : NULL; }
const char *mw_ep_request_header_value(const mw_http_request *r, size_t i) { return i < r->header_count ? r->header_values[i] : NULL; }
const uint8_t *mw_ep_request_body(const mw_http_request *r) { return r->body; }
size_t mw_ep_request_body_length(const mw_http_request *r) { return r->body_length; }
unsigned int mw_ep_request_rejection(const mw_http_request *r) { return r->rejection; }

int mw_ep_request_respond(mw_http_request *r, unsigned int status, const char *const *names, const char *const *values,
                          size_t count, const uint8_t *body, size_t body_length) {
    struct ep_conn *c = r->conn;
    int rc = 1;
    int close_after = 0;
    size_t length = 0;
    /* Reading c->keep_alive and c->head is safe: the I/O thread does not touch a dispatched connection's parse state. */
    uint8_t *response = build_response(status, names, values, count, body, body_length, c->head, c->keep_alive, &length, &close_after);
    if (!response) {
        rc = -1;
        response = build_response(500, NULL, NULL, 0, NULL, 0, 0, 0, &length, &close_after);
    }
    r->response = response;
    r->response_length = length;
    r->close_after = close_after;
    struct ep_thread *t = c->thread;
    mw_http_server *s = t->server;
    atomic_fetch_add(&s->queued, 1);
    pthread_mutex_lock(&t->lock);
    int was_empty = t->answered_head == NULL;
    if (t->answered_tail) t->answered_tail->next_answered = r;
    else t->answered_head = r;
    t->answered_tail = r;
    pthread_mutex_unlock(&t->lock);
    if (was_empty) {
        uint64_t one = 1;
        if (write(t->wake_fd, &one, sizeof one) < 0) { /* the counter is already non-zero: a wake is pending */
        }
    }
    /* Last: once `dispatched` is 0, mw_ep_server_stop may free the thread this touched. */
    atomic_fetch_sub(&s->dispatched, 1);
    return rc;
}
