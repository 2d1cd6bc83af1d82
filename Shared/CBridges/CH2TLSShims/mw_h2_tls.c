/* Bytes between OpenSSL and nghttp2: see include/mw_h2_tls.h. */
#define _GNU_SOURCE
#include "mw_h2_tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>

#define READ_CHUNK 16384
#define READS_PER_TURN 16 /* then write what is ready before reading more */
#define OUT_BATCH 65536   /* bytes gathered from nghttp2 per TLS write */

uint64_t mw_h2_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

const char *mw_h2_tls_error_text(char *buf, size_t len) {
    unsigned long e = ERR_get_error();
    if (e == 0) {
        snprintf(buf, len, "%s", errno ? strerror(errno) : "connection closed");
    } else {
        ERR_error_string_n(e, buf, len);
    }
    ERR_clear_error();
    return buf;
}

static int out_append(mw_h2_out *out, const uint8_t *data, size_t len) {
    if (out->len + len > out->cap) {
        size_t cap = out->cap ? out->cap : 16384;
        while (cap < out->len + len) cap *= 2;
        uint8_t *grown = realloc(out->data, cap);
        if (!grown) return -1;
        out->data = grown;
        out->cap = cap;
    }
    memcpy(out->data + out->len, data, len);
    out->len += len;
    return 0;
}

int mw_h2_flush(nghttp2_session *session, SSL *ssl, mw_h2_out *out, char *error, size_t error_len) {
    for (;;) {
        if (out->off == out->len) {
            out->off = out->len = 0;
            while (out->len < OUT_BATCH) {
                const uint8_t *data;
                ssize_t n = nghttp2_session_mem_send(session, &data);
                if (n < 0) {
                    snprintf(error, error_len, "HTTP/2 send failed: %s", nghttp2_strerror((int)n));
                    return -1;
                }
                if (n == 0) break;
                if (out_append(out, data, (size_t)n) != 0) {
                    snprintf(error, error_len, "out of memory");
                    return -1;
                }
            }
            if (out->len == 0) return 0;
        }
        ERR_clear_error();
        int n = SSL_write(ssl, out->data + out->off, (int)(out->len - out->off));
        if (n > 0) {
            out->off += (size_t)n;
            continue;
        }
        int e = SSL_get_error(ssl, n);
        if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) return 0;
        char why[256];
        snprintf(error, error_len, "TLS write failed: %s", mw_h2_tls_error_text(why, sizeof why));
        return -1;
    }
}

int mw_h2_receive(nghttp2_session *session, SSL *ssl, int *wants_write, char *error, size_t error_len) {
    uint8_t buf[READ_CHUNK];
    *wants_write = 0;
    for (int turn = 0; turn < READS_PER_TURN; turn++) {
        ERR_clear_error();
        errno = 0;
        int n = SSL_read(ssl, buf, sizeof buf);
        if (n > 0) {
            ssize_t used = nghttp2_session_mem_recv(session, buf, (size_t)n);
            if (used < 0) {
                snprintf(error, error_len, "%s", nghttp2_strerror((int)used));
                return MW_H2_RECEIVE_PROTOCOL;
            }
            continue;
        }
        int e = SSL_get_error(ssl, n);
        if (e == SSL_ERROR_WANT_READ) return MW_H2_RECEIVE_WAIT;
        if (e == SSL_ERROR_WANT_WRITE) {
            *wants_write = 1;
            return MW_H2_RECEIVE_WAIT;
        }
        if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0 && errno == 0)) {
            snprintf(error, error_len, "closed");
            return MW_H2_RECEIVE_CLOSED;
        }
        char why[256];
        snprintf(error, error_len, "%s", mw_h2_tls_error_text(why, sizeof why));
        return MW_H2_RECEIVE_FAILED;
    }
    return MW_H2_RECEIVE_WAIT;
}
