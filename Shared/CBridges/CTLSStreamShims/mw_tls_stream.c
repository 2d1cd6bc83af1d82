/*
 * Blocking-with-timeout TCP/TLS streams over non-blocking sockets: every wait
 * is a poll(2) on the socket and the stream's cancel eventfd, so another
 * thread can interrupt a read that would otherwise wait for minutes (IMAP IDLE).
 */
#define _GNU_SOURCE
#include "mw_tls_stream.h"

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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* No atexit cleanup of OpenSSL's globals: threads may still be tearing down
 * connections when a Swift program exits (see mw_crypto.c). */
__attribute__((constructor)) static void mw_tls_no_atexit(void) {
    OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT, NULL);
}

struct mw_tls_stream {
    int fd;
    int cancel_fd;
    atomic_int cancelled;
    SSL_CTX *ctx;
    SSL *ssl;
    int min_version;
    char error[256];
};

static void set_error(mw_tls_stream *s, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(s->error, sizeof s->error, format, args);
    va_end(args);
}

/* Appends OpenSSL's first queued error to the message, then clears the queue. */
static void set_tls_error(mw_tls_stream *s, const char *what) {
    unsigned long code = ERR_get_error();
    char reason[160] = "";
    if (code != 0) ERR_error_string_n(code, reason, sizeof reason);
    ERR_clear_error();
    set_error(s, "%s%s%s", what, reason[0] ? ": " : "", reason);
}

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int remaining(int64_t deadline) {
    if (deadline < 0) return -1;
    int64_t left = deadline - now_ms();
    return left <= 0 ? 0 : (left > INT32_MAX ? INT32_MAX : (int)left);
}

/* Waits for `events` on the socket: 0 ready, or a negative code. */
static int wait_for(mw_tls_stream *s, short events, int64_t deadline) {
    for (;;) {
        if (atomic_load(&s->cancelled)) {
            set_error(s, "cancelled");
            return MW_STREAM_CANCELLED;
        }
        struct pollfd p[2] = {{s->fd, events, 0}, {s->cancel_fd, POLLIN, 0}};
        int n = poll(p, 2, remaining(deadline));
        if (n < 0) {
            if (errno == EINTR) continue;
            set_error(s, "poll: %s", strerror(errno));
            return MW_STREAM_ERROR;
        }
        if (p[1].revents) {
            set_error(s, "cancelled");
            return MW_STREAM_CANCELLED;
        }
        if (n == 0) {
            set_error(s, "timed out");
            return MW_STREAM_TIMEOUT;
        }
        return 0; /* readable, writable, or an error/hang-up the next call reports */
    }
}

static int64_t deadline_after(int timeout_ms) { return timeout_ms < 0 ? -1 : now_ms() + timeout_ms; }

mw_tls_stream *mw_tls_stream_new(void) {
    mw_tls_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->fd = -1;
    s->min_version = TLS1_2_VERSION;
    s->cancel_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->cancel_fd < 0) {
        free(s);
        return NULL;
    }
    return s;
}

static int connect_one(mw_tls_stream *s, const struct addrinfo *a, int64_t deadline) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
        set_error(s, "socket: %s", strerror(errno));
        return MW_STREAM_ERROR;
    }
    s->fd = fd;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
        set_error(s, "connect: %s", strerror(errno));
        goto fail;
    }
    int rc = wait_for(s, POLLOUT, deadline);
    if (rc != 0) {
        if (rc == MW_STREAM_TIMEOUT) set_error(s, "connect timed out");
        close(fd);
        s->fd = -1;
        return rc;
    }
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0) {
        set_error(s, "connect: %s", strerror(soerr ? soerr : errno));
        goto fail;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    return 0;
fail:
    close(fd);
    s->fd = -1;
    return MW_STREAM_ERROR;
}

int mw_tls_stream_connect(mw_tls_stream *s, const char *host, const char *port, int timeout_ms) {
    if (s->fd >= 0) {
        set_error(s, "already connected");
        return MW_STREAM_ERROR;
    }
    /* A write to a connection the server closed must fail with EPIPE, not
     * kill the process: streams are used by the thread that connects them. */
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, NULL);
    int64_t deadline = deadline_after(timeout_ms);
    struct addrinfo hints = {0}, *list = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(host, port, &hints, &list);
    if (gai != 0) {
        set_error(s, "cannot resolve %s: %s", host, gai_strerror(gai));
        return MW_STREAM_ERROR;
    }
    int rc = MW_STREAM_ERROR;
    for (struct addrinfo *a = list; a; a = a->ai_next) {
        rc = connect_one(s, a, deadline);
        if (rc == 0 || rc == MW_STREAM_CANCELLED || rc == MW_STREAM_TIMEOUT) break;
    }
    freeaddrinfo(list);
    return rc;
}

static int is_ip_address(const char *name) {
    unsigned char buffer[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, name, buffer) == 1 || inet_pton(AF_INET6, name, buffer) == 1;
}

void mw_tls_stream_set_min_version(mw_tls_stream *s, int version) { s->min_version = version; }

int mw_tls_stream_start_tls(mw_tls_stream *s, const char *server_name, const char *ca_file, int timeout_ms) {
    if (s->fd < 0 || s->ssl) {
        set_error(s, s->ssl ? "TLS is already on" : "not connected");
        return MW_STREAM_ERROR;
    }
    int64_t deadline = deadline_after(timeout_ms);
    ERR_clear_error();
    s->ctx = SSL_CTX_new(TLS_client_method());
    if (!s->ctx) {
        set_tls_error(s, "cannot create a TLS context");
        return MW_STREAM_ERROR;
    }
    if (SSL_CTX_set_min_proto_version(s->ctx, s->min_version) != 1) {
        set_tls_error(s, "cannot set the minimum TLS version");
        return MW_STREAM_ERROR;
    }
    SSL_CTX_set_options(s->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(s->ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_verify(s->ctx, SSL_VERIFY_PEER, NULL);
    int loaded = (ca_file && ca_file[0]) ? SSL_CTX_load_verify_locations(s->ctx, ca_file, NULL)
                                         : SSL_CTX_set_default_verify_paths(s->ctx);
    if (loaded != 1) {
        set_tls_error(s, (ca_file && ca_file[0]) ? "cannot load the CA file" : "cannot load the system trust store");
        return MW_STREAM_ERROR;
    }
    s->ssl = SSL_new(s->ctx);
    if (!s->ssl || SSL_set_fd(s->ssl, s->fd) != 1) {
        set_tls_error(s, "cannot create a TLS session");
        return MW_STREAM_ERROR;
    }
    if (is_ip_address(server_name)) {
        if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s->ssl), server_name) != 1) {
            set_tls_error(s, "bad server address");
            return MW_STREAM_ERROR;
        }
    } else {
        SSL_set_hostflags(s->ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        if (SSL_set1_host(s->ssl, server_name) != 1 || SSL_set_tlsext_host_name(s->ssl, server_name) != 1) {
            set_tls_error(s, "bad server name");
            return MW_STREAM_ERROR;
        }
    }
    for (;;) {
        int r = SSL_connect(s->ssl);
        if (r == 1) return 0;
        int e = SSL_get_error(s->ssl, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            int rc = wait_for(s, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline);
            if (rc != 0) {
                if (rc == MW_STREAM_TIMEOUT) set_error(s, "TLS handshake timed out");
                return rc;
            }
            continue;
        }
        long verify = SSL_get_verify_result(s->ssl);
        if (verify != X509_V_OK) {
            ERR_clear_error();
            set_error(s, "the server's certificate is not trusted: %s", X509_verify_cert_error_string(verify));
        } else if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
            set_error(s, "TLS handshake failed: the connection closed");
        } else {
            set_tls_error(s, "TLS handshake failed");
        }
        return MW_STREAM_ERROR;
    }
}

long mw_tls_stream_read(mw_tls_stream *s, void *buffer, size_t capacity, int timeout_ms) {
    if (s->fd < 0) {
        set_error(s, "not connected");
        return MW_STREAM_ERROR;
    }
    int64_t deadline = deadline_after(timeout_ms);
    for (;;) {
        if (atomic_load(&s->cancelled)) {
            set_error(s, "cancelled");
            return MW_STREAM_CANCELLED;
        }
        if (!s->ssl) {
            ssize_t n = recv(s->fd, buffer, capacity, 0);
            if (n >= 0) return (long)n;
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                set_error(s, "read: %s", strerror(errno));
                return MW_STREAM_ERROR;
            }
            int rc = wait_for(s, POLLIN, deadline);
            if (rc != 0) return rc;
            continue;
        }
        size_t got = 0;
        ERR_clear_error();
        int r = SSL_read_ex(s->ssl, buffer, capacity, &got);
        if (r == 1) return (long)got;
        int e = SSL_get_error(s->ssl, r);
        if (e == SSL_ERROR_ZERO_RETURN) return 0;
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            int rc = wait_for(s, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline);
            if (rc != 0) return rc;
            continue;
        }
        if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
            if (errno == 0) return 0;
            set_error(s, "read: %s", strerror(errno));
        } else {
            set_tls_error(s, "TLS read failed");
        }
        return MW_STREAM_ERROR;
    }
}

int mw_tls_stream_write(mw_tls_stream *s, const void *bytes, size_t length, int timeout_ms) {
    if (s->fd < 0) {
        set_error(s, "not connected");
        return MW_STREAM_ERROR;
    }
    int64_t deadline = deadline_after(timeout_ms);
    const unsigned char *p = bytes;
    while (length > 0) {
        if (atomic_load(&s->cancelled)) {
            set_error(s, "cancelled");
            return MW_STREAM_CANCELLED;
        }
        size_t written = 0;
        if (!s->ssl) {
            ssize_t n = send(s->fd, p, length, MSG_NOSIGNAL);
            if (n < 0) {
                if (errno == EINTR) continue;
                if (errno != EAGAIN && errno != EWOULDBLOCK) {
                    set_error(s, "write: %s", strerror(errno));
                    return MW_STREAM_ERROR;
                }
                int rc = wait_for(s, POLLOUT, deadline);
                if (rc != 0) return rc;
                continue;
            }
            written = (size_t)n;
        } else {
            ERR_clear_error();
            int r = SSL_write_ex(s->ssl, p, length, &written);
            if (r != 1) {
                int e = SSL_get_error(s->ssl, r);
                if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
                    int rc = wait_for(s, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline);
                    if (rc != 0) return rc;
                    continue;
                }
                if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) set_error(s, "write: %s", strerror(errno ? errno : EPIPE));
                else set_tls_error(s, "TLS write failed");
                return MW_STREAM_ERROR;
            }
        }
        p += written;
        length -= written;
    }
    return 0;
}

void mw_tls_stream_cancel(mw_tls_stream *s) {
    atomic_store(&s->cancelled, 1);
    uint64_t one = 1;
    if (write(s->cancel_fd, &one, sizeof one) < 0) { /* the counter is already non-zero */ }
}

const char *mw_tls_stream_error(const mw_tls_stream *s) { return s->error; }

const char *mw_tls_stream_tls_version(const mw_tls_stream *s) { return s->ssl ? SSL_get_version(s->ssl) : NULL; }

void mw_tls_stream_close(mw_tls_stream *s) {
    if (!s) return;
    if (s->ssl) {
        if (!atomic_load(&s->cancelled)) SSL_shutdown(s->ssl); /* best effort; the socket is non-blocking */
        SSL_free(s->ssl);
    }
    if (s->ctx) SSL_CTX_free(s->ctx);
    ERR_clear_error();
    if (s->fd >= 0) close(s->fd);
    close(s->cancel_fd);
    free(s);
}

void mw_tls_stream_thread_done(void) { OPENSSL_thread_stop(); }
