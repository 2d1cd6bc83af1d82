#ifndef MAILWAKE_MW_H2_TLS_H
#define MAILWAKE_MW_H2_TLS_H
/*
 * What both HTTP/2-over-TLS shims do the same way (the APNs simulator's
 * server, CH2ServerShims, and the relay's APNs client, CH2ClientShims): move
 * bytes between a non-blocking OpenSSL connection and an nghttp2 session,
 * many frames to one TLS write. Each caller logs what these report in its
 * own words.
 */
#include <stddef.h>
#include <stdint.h>

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t mw_h2_now_ms(void);

/* The first queued OpenSSL error as text (errno's text, or "connection
 * closed", when the queue is empty); the queue is cleared. Returns `buf`. */
const char *mw_h2_tls_error_text(char *buf, size_t len);

/* Frames gathered from nghttp2 and not yet written. Zero-initialise; free `data` when done. */
typedef struct mw_h2_out {
    uint8_t *data;
    size_t len, off, cap;
} mw_h2_out;

/* Gathers up to 64 KiB of frames from `session` and writes them with one
 * SSL_write, until nghttp2 has nothing left or the socket is full (the rest
 * stays in `out`). 0, or -1 when the connection failed, with why in `error`. */
int mw_h2_flush(nghttp2_session *session, SSL *ssl, mw_h2_out *out, char *error, size_t error_len);

/* Whether `out` holds bytes not yet written. */
static inline int mw_h2_out_pending(const mw_h2_out *out) { return out->off != out->len; }

enum {
    MW_H2_RECEIVE_WAIT = 0,      /* nothing more to read now (see `wants_write`) */
    MW_H2_RECEIVE_PROTOCOL = -1, /* nghttp2 refused the input; flush the GOAWAY it queued, then close */
    MW_H2_RECEIVE_CLOSED = -2,   /* the peer closed the connection */
    MW_H2_RECEIVE_FAILED = -3    /* TLS or the socket failed */
};

/* Reads up to 16 TLS records and hands them to `session`, then returns so
 * the caller can write before reading more. `wants_write` is set when TLS
 * needs the socket writable to read on. Returns MW_H2_RECEIVE_*; with a
 * failure, why in `error`. */
int mw_h2_receive(nghttp2_session *session, SSL *ssl, int *wants_write, char *error, size_t error_len);

#ifdef __cplusplus
}
#endif
#endif
