#define _GNU_SOURCE
#include "mw_h1_load.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_HEAD = 8 * 1024, MAX_ANSWER = 64 * 1024, IDLE_TIMEOUT_MS = 30 * 1000, SETUP_TIMEOUT_S = 10 };

typedef struct {
    int fd;
    SSL *ssl;
    int alive;
    long current;                 /* the body in flight, or -1 */
    uint8_t *out;                 /* the request's bytes not yet written: out[off..<len] */
    size_t out_len, out_off, out_cap;
    uint8_t *in;                  /* the answer read so far */
    size_t in_len;
} conn;

typedef struct {
    const char *host_header, *path;
    const uint8_t *bodies;        /* every body, one after the other */
    const size_t *lengths;
    size_t count, next, next_offset, answered;
    double *sent_ms, *answered_ms;
    int *status;
    /* Open loop: body i is due at start_ns + due_ns[i] (CLOCK_MONOTONIC); NULL for a closed loop. */
    const int64_t *due_ns;
    int64_t start_ns;
    conn **idle;                  /* open loop: connections with nothing in flight */
    size_t idle_count;
} run;

static int64_t monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* When the next body is due (CLOCK_MONOTONIC, ns); a closed loop's is always now. */
static int64_t next_due_ns(const run *r) {
    return r->due_ns ? r->start_ns + r->due_ns[r->next] : 0;
}

static double wall_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void set_error(char *error, size_t len, const char *what) {
    char detail[256] = "";
    unsigned long e = ERR_get_error();
    if (e) ERR_error_string_n(e, detail, sizeof detail);
    else if (errno) snprintf(detail, sizeof detail, "%s", strerror(errno));
    snprintf(error, len, "%s%s%s", what, detail[0] ? ": " : "", detail);
    ERR_clear_error();
}

static int open_conn(conn *c, SSL_CTX *ctx, const struct addrinfo *address, const char *ip, char *error, size_t error_len) {
    c->fd = socket(address->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0) { set_error(error, error_len, "socket"); return -1; }
    int one = 1;
    (void)setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* The connect and the handshake block, for SETUP_TIMEOUT_S at most. */
    struct timeval limit = { .tv_sec = SETUP_TIMEOUT_S, .tv_usec = 0 };
    (void)setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    (void)setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    if (connect(c->fd, address->ai_addr, address->ai_addrlen) != 0) { set_error(error, error_len, "connect"); return -1; }
    c->ssl = SSL_new(ctx);
    if (!c->ssl || SSL_set_fd(c->ssl, c->fd) != 1) { set_error(error, error_len, "TLS set-up"); return -1; }
    if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl), ip) != 1) { set_error(error, error_len, "TLS peer address"); return -1; }
    /* The handshake blocks (the socket is still blocking); the run does not. */
    if (SSL_connect(c->ssl) != 1) { set_error(error, error_len, "TLS handshake"); return -1; }
    int flags = fcntl(c->fd, F_GETFL);
    if (flags < 0 || fcntl(c->fd, F_SETFL, flags | O_NONBLOCK) != 0) { set_error(error, error_len, "fcntl"); return -1; }
    c->in = malloc(MAX_ANSWER);
    if (!c->in) { snprintf(error, error_len, "out of memory"); return -1; }
    c->alive = 1;
    c->current = -1;
    return 0;
}

static void close_conn(conn *c) {
    if (c->ssl) SSL_free(c->ssl);
    if (c->fd >= 0) close(c->fd);
    free(c->out);
    free(c->in);
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->current = -1;
}

/* The connection failed: its request in flight is answered 0. */
static void fail_conn(conn *c, run *r) {
    if (c->current >= 0) {
        r->status[c->current] = 0;
        r->answered_ms[c->current] = wall_ms();
        r->answered++;
    }
    c->current = -1;
    c->alive = 0;
    /* An idle connection that failed (the server closed it) leaves the idle list. */
    for (size_t k = 0; k < r->idle_count; k++) {
        if (r->idle[k] == c) {
            r->idle[k] = r->idle[--r->idle_count];
            break;
        }
    }
    ERR_clear_error();
}

/* Writes what is left of the request; 0 when written or waiting for the socket, -1 on failure. */
static int progress_write(conn *c) {
    while (c->out_off < c->out_len) {
        int n = SSL_write(c->ssl, c->out + c->out_off, (int)(c->out_len - c->out_off));
        if (n > 0) {
            c->out_off += (size_t)n;
            continue;
        }
        int e = SSL_get_error(c->ssl, n);
        return (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) ? 0 : -1;
    }
    return 0;
}

/* Sends the next body on `c`, if any is left and it is due (an open loop's connection waits idle for it otherwise);
 * -1 when the connection failed. */
static int start_next(conn *c, run *r) {
    if (r->next >= r->count) return 0;
    if (r->due_ns && monotonic_ns() < next_due_ns(r)) {
        r->idle[r->idle_count++] = c;
        return 0;
    }
    long i = (long)r->next;
    size_t body = r->lengths[i];
    char head[MAX_HEAD];
    int head_len = snprintf(head, sizeof head,
                            "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                            r->path, r->host_header, body);
    if (head_len < 0 || head_len >= (int)sizeof head) return -1;
    size_t need = (size_t)head_len + body;
    if (need > c->out_cap) {
        uint8_t *grown = realloc(c->out, need);
        if (!grown) return -1;
        c->out = grown;
        c->out_cap = need;
    }
    r->next++;
    memcpy(c->out, head, (size_t)head_len);
    if (body) memcpy(c->out + head_len, r->bodies + r->next_offset, body);
    r->next_offset += body;
    c->out_len = need;
    c->out_off = 0;
    c->in_len = 0;
    c->current = i;
    r->sent_ms[i] = wall_ms();
    return progress_write(c);
}

/* Whether header line [line, end) is `name: value` (name case-insensitive); *value points past the colon and blanks. */
static int header_is(const char *line, const char *end, const char *name, const char **value) {
    size_t n = strlen(name);
    if ((size_t)(end - line) <= n || strncasecmp(line, name, n) != 0 || line[n] != ':') return 0;
    const char *v = line + n + 1;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    *value = v;
    return 1;
}

/* The answer in c->in: 1 complete (status and whether the server closes set), 0 incomplete, -1 malformed. */
static int parse_answer(const conn *c, int *status, int *closes) {
    const char *text = (const char *)c->in;
    const char *end = memmem(text, c->in_len, "\r\n\r\n", 4);
    if (!end) return c->in_len >= MAX_HEAD ? -1 : 0;
    if (end - text < 13 || memcmp(text, "HTTP/1.1 ", 9) != 0 || (text[12] != ' ' && text[12] != '\r')) return -1;
    int code = 0;
    for (int k = 9; k < 12; k++) {
        if (text[k] < '0' || text[k] > '9') return -1;
        code = code * 10 + (text[k] - '0');
    }
    if (code < 200) return -1; /* interim answers are not expected */
    long length = -1;
    *closes = 0;
    /* The status line ends at the first \n: at end + 1 at the latest. */
    for (const char *line = (const char *)memchr(text, '\n', (size_t)(end + 2 - text)) + 1; line < end + 2;) {
        const char *eol = memmem(line, (size_t)(end + 2 - line), "\r\n", 2);
        const char *value;
        if (header_is(line, eol, "Content-Length", &value)) {
            length = 0;
            for (; value < eol; value++) {
                if (*value < '0' || *value > '9' || length > MAX_ANSWER) return -1;
                length = length * 10 + (*value - '0');
            }
        } else if (header_is(line, eol, "Transfer-Encoding", &value)) {
            return -1;
        } else if (header_is(line, eol, "Connection", &value) && eol - value == 5 && strncasecmp(value, "close", 5) == 0) {
            *closes = 1;
        }
        line = eol + 2;
    }
    if (length < 0) {
        if (code != 204 && code != 304) return -1;
        length = 0;
    }
    size_t total = (size_t)(end + 4 - text) + (size_t)length;
    if (total > MAX_ANSWER) return -1;
    if (c->in_len < total) return 0;
    if (c->in_len > total) return -1; /* bytes nobody asked for */
    *status = code;
    return 1;
}

/* Reads what has arrived; answers complete requests and sends the next. 0 when waiting, -1 on failure. */
static int progress_read(conn *c, run *r) {
    for (;;) {
        int n = SSL_read(c->ssl, c->in + c->in_len, (int)(MAX_ANSWER - c->in_len));
        if (n <= 0) {
            int e = SSL_get_error(c->ssl, n);
            return (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) ? 0 : -1;
        }
        if (c->current < 0) return -1; /* an answer to nothing */
        c->in_len += (size_t)n;
        int code = 0, closes = 0;
        int parsed = parse_answer(c, &code, &closes);
        if (parsed < 0) return -1;
        if (parsed == 0) {
            if (c->in_len == MAX_ANSWER) return -1;
            continue;
        }
        /* An answer before the whole request was written would leave the rest of it on the connection. */
        if (c->out_off < c->out_len) return -1;
        r->status[c->current] = code;
        r->answered_ms[c->current] = wall_ms();
        r->answered++;
        c->current = -1;
        if (closes) return -1;
        if (start_next(c, r) != 0) return -1;
    }
}

/* Open loop: sends each body that is due, while a connection is idle. */
static void start_due(run *r) {
    while (r->idle_count > 0 && r->next < r->count && monotonic_ns() >= next_due_ns(r)) {
        conn *c = r->idle[--r->idle_count];
        if (start_next(c, r) != 0) fail_conn(c, r);
    }
}

/* How long epoll may wait: until the next body is due when a connection is idle for it, else a second. */
static void wait_limit(const run *r, struct timespec *limit) {
    int64_t wait = 1000000000;
    if (r->due_ns && r->idle_count > 0 && r->next < r->count) {
        int64_t until = next_due_ns(r) - monotonic_ns();
        wait = until < 0 ? 0 : (until < wait ? until : wait);
    }
    limit->tv_sec = (time_t)(wait / 1000000000);
    limit->tv_nsec = (long)(wait % 1000000000);
}

int mw_h1_load_run(const char *ip, int port, const char *host_header, const char *path, const char *ca_file,
                   int connections, const uint8_t *bodies, const size_t *lengths, size_t count, const int64_t *due_ns,
                   void (*connected)(void *context), void *context,
                   double *sent_ms, double *answered_ms, int *status, char *error, size_t error_len) {
    if (!ip || !host_header || !path || !ca_file || connections < 1 || connections > 4096 || (count && (!bodies || !lengths))
        || !sent_ms || !answered_ms || !status || !error || error_len == 0) {
        if (error && error_len) snprintf(error, error_len, "invalid arguments");
        return -1;
    }
    /* An address literal only: no name lookup. */
    char service[8];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV, .ai_socktype = SOCK_STREAM }, *address = NULL;
    if (port < 1 || port > 65535 || getaddrinfo(ip, service, &hints, &address) != 0) {
        snprintf(error, error_len, "not an IP address and port: %s %d", ip, port);
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        sent_ms[i] = 0;
        answered_ms[i] = 0;
        status[i] = 0;
    }

    /* A write to a connection the server reset must fail, not raise SIGPIPE. */
    sigset_t pipe_only, previous;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
    int rc = -1, ep = -1;
    conn *conns = NULL, **idle = NULL;
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) { set_error(error, error_len, "TLS context"); goto done; }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1) { set_error(error, error_len, "CA file"); goto done; }
    conns = calloc((size_t)connections, sizeof *conns);
    if (conns) for (int k = 0; k < connections; k++) conns[k].fd = -1;
    idle = calloc((size_t)connections, sizeof *idle);
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (!conns || !idle || ep < 0) { set_error(error, error_len, "set-up"); goto done; }
    for (int k = 0; k < connections; k++) {
        if (open_conn(&conns[k], ctx, address, ip, error, error_len) != 0) goto done;
        struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = &conns[k] };
        if (epoll_ctl(ep, EPOLL_CTL_ADD, conns[k].fd, &ev) != 0) { set_error(error, error_len, "epoll_ctl"); goto done; }
    }

    if (connected) connected(context);
    run r = { .host_header = host_header, .path = path, .bodies = bodies, .lengths = lengths, .count = count,
              .sent_ms = sent_ms, .answered_ms = answered_ms, .status = status, .due_ns = due_ns,
              .start_ns = monotonic_ns(), .idle = idle };
    for (int k = 0; k < connections; k++) {
        if (start_next(&conns[k], &r) != 0) fail_conn(&conns[k], &r);
    }
    double last_progress = wall_ms();
    struct epoll_event events[256];
    while (r.answered < r.count) {
        int alive = 0;
        for (int k = 0; k < connections; k++) alive += conns[k].alive;
        if (!alive) break;
        struct timespec limit;
        wait_limit(&r, &limit);
        int n = epoll_pwait2(ep, events, 256, &limit, NULL);
        if (n < 0) {
            if (errno == EINTR) continue;
            set_error(error, error_len, "epoll_pwait2");
            goto done;
        }
        size_t before = r.answered, sent_before = r.next;
        for (int k = 0; k < n; k++) {
            conn *c = events[k].data.ptr;
            if (!c->alive) continue;
            if ((events[k].events & (EPOLLERR | EPOLLHUP)) && !(events[k].events & EPOLLIN)) {
                fail_conn(c, &r);
                continue;
            }
            if (progress_write(c) != 0 || progress_read(c, &r) != 0) fail_conn(c, &r);
        }
        start_due(&r);
        double now = wall_ms();
        if (r.answered != before || r.next != sent_before) last_progress = now;
        else if (now - last_progress > IDLE_TIMEOUT_MS) {
            for (int k = 0; k < connections; k++) if (conns[k].alive) fail_conn(&conns[k], &r);
        }
    }
    /* Bodies never sent (every connection failed) keep status 0. */
    rc = 0;
done:
    if (conns) {
        for (int k = 0; k < connections; k++) close_conn(&conns[k]);
        free(conns);
    }
    free(idle);
    if (ep >= 0) close(ep);
    SSL_CTX_free(ctx);
    freeaddrinfo(address);
    /* A SIGPIPE raised meanwhile is pending: take it before unblocking. */
    struct timespec none = { 0, 0 };
    while (sigtimedwait(&pipe_only, NULL, &none) == SIGPIPE) {}
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    return rc;
}
