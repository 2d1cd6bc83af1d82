#ifndef MW_TLS_STREAM_H
#define MW_TLS_STREAM_H

#include <stddef.h>

/*
 * A byte stream over TCP, optionally upgraded to TLS (OpenSSL), for line
 * protocols such as IMAP. Calls block the calling thread (each has a
 * timeout) and can be interrupted from any thread with mw_tls_stream_cancel.
 * The certificate chain and host name are always verified. A stream is used
 * by the thread that connects it (connecting blocks SIGPIPE on that thread).
 */

typedef struct mw_tls_stream mw_tls_stream;

enum {
    MW_STREAM_ERROR = -1,     /* I/O or TLS failure; the message is in the stream's error text */
    MW_STREAM_TIMEOUT = -2,   /* nothing happened within the timeout */
    MW_STREAM_CANCELLED = -3, /* mw_tls_stream_cancel was called */
};

/* A new, unconnected stream; NULL when out of memory or descriptors. */
mw_tls_stream *mw_tls_stream_new(void);

/* Connects to host:port (each resolved address in turn). 0 or a negative code. */
int mw_tls_stream_connect(mw_tls_stream *s, const char *host, const char *port, int timeout_ms);

/* The lowest protocol version start_tls accepts (an OpenSSL TLS*_VERSION);
 * TLS1_2_VERSION unless set. A value OpenSSL refuses makes start_tls fail
 * (the tests check that this failure is reported, not ignored). */
void mw_tls_stream_set_min_version(mw_tls_stream *s, int version);

/* Starts TLS on the connected socket (implicit TLS or after STARTTLS).
 * `server_name` is verified against the certificate (a DNS name or an IP
 * address) and sent as SNI when it is a name. `ca_file` (PEM) replaces the
 * system trust store when not NULL. 0 or a negative code. */
int mw_tls_stream_start_tls(mw_tls_stream *s, const char *server_name, const char *ca_file, int timeout_ms);

/* Reads up to `capacity` bytes: >0 bytes read, 0 end of stream, or a negative code. */
long mw_tls_stream_read(mw_tls_stream *s, void *buffer, size_t capacity, int timeout_ms);

/* Writes all `length` bytes. 0 or a negative code. */
int mw_tls_stream_write(mw_tls_stream *s, const void *bytes, size_t length, int timeout_ms);

/* Makes the current and every later call on `s` return MW_STREAM_CANCELLED. Any thread. */
void mw_tls_stream_cancel(mw_tls_stream *s);

/* The last error's message (valid until the next call on `s`). */
const char *mw_tls_stream_error(const mw_tls_stream *s);

/* "TLSv1.3" etc. when TLS is on, else NULL. */
const char *mw_tls_stream_tls_version(const mw_tls_stream *s);

/* Closes (a TLS close_notify, best effort) and frees. */
void mw_tls_stream_close(mw_tls_stream *s);

/* Frees the calling thread's OpenSSL state; call before a thread that used streams exits. */
void mw_tls_stream_thread_done(void);

#endif
