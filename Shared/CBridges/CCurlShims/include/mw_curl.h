#ifndef MAILWAKE_CCURLSHIMS_MW_CURL_H
#define MAILWAKE_CCURLSHIMS_MW_CURL_H
/*
 * Plain, typed functions over libcurl for Swift (DESIGN.md §3).
 *
 * libcurl's setopt/getinfo functions are variadic, which Swift cannot call,
 * and some options keep the caller's pointer (CURLOPT_POSTFIELDS,
 * CURLOPT_HTTPHEADER). Here every option has a typed setter, and one
 * transfer (`mw_transfer`) owns everything curl points into while it runs:
 * the easy handle, the header list, the error buffer and the response
 * buffers. Request bodies are copied by curl (CURLOPT_COPYPOSTFIELDS).
 * `mw_transfer_free` releases all of it exactly once.
 *
 * String options passed through `mw_curl_set_string` are copied by libcurl
 * (documented for every string option since 7.17.0), so the caller's string
 * may be freed after the call returns.
 */
#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

/* Once per process, thread-safe (curl_global_init under pthread_once). */
CURLcode mw_curl_global_init(void);

/* 1 when the linked libcurl supports HTTP/2 (built with nghttp2). */
int mw_curl_supports_http2(void);
/* The linked libcurl's version string, e.g. "7.88.1". */
const char *mw_curl_version(void);

/* Names the calling thread (first 15 bytes), for ps/top/gdb. */
void mw_set_current_thread_name(const char *name);

/* Typed setters for the easy handle (CURLOPT_*). */
CURLcode mw_curl_set_long(CURL *easy, CURLoption option, long value);
CURLcode mw_curl_set_off_t(CURL *easy, CURLoption option, curl_off_t value);
CURLcode mw_curl_set_string(CURL *easy, CURLoption option, const char *value);

/* Typed getters (CURLINFO_*). */
CURLcode mw_curl_get_long(CURL *easy, CURLINFO info, long *out);
CURLcode mw_curl_get_off_t(CURL *easy, CURLINFO info, curl_off_t *out);
CURLcode mw_curl_get_string(CURL *easy, CURLINFO info, const char **out);

/* Multi handle. */
CURLMcode mw_curl_multi_set_long(CURLM *multi, CURLMoption option, long value);

/*
 * One request/response. Created with an easy handle whose write, header and
 * error-buffer options point into the transfer itself, and with
 * CURLOPT_PRIVATE set to the transfer, so a finished easy handle leads back
 * to it (`mw_curl_multi_next_done`).
 */
typedef struct mw_transfer mw_transfer;

/* NULL when out of memory. `max_body` bounds the response body,
 * `max_header_bytes` the response header block; exceeding either makes
 * the transfer fail (CURLE_WRITE_ERROR) with `mw_transfer_too_large` set. */
mw_transfer *mw_transfer_new(uint64_t id, size_t max_body, size_t max_header_bytes);
/* Releases the easy handle (which must not be in a multi handle), the
 * header list and the buffers. NULL is ignored. */
void mw_transfer_free(mw_transfer *t);
/* Makes a finished transfer (its easy handle out of any multi handle) new
 * again for request `id`: every option back to libcurl's default
 * (curl_easy_reset) and this shim's own set again, no headers, empty
 * buffers (kept when small). The easy handle keeps what curl allocates once
 * per handle (its receive buffer), which is the point. 0, or -1 when an
 * option could not be set (then free it). */
int mw_transfer_recycle(mw_transfer *t, uint64_t id, size_t max_body, size_t max_header_bytes);

uint64_t mw_transfer_id(const mw_transfer *t);
CURL *mw_transfer_easy(mw_transfer *t);

/* Adds one request header line ("Name: value", "Name;" for an empty value,
 * "Name:" to suppress one of curl's own). libcurl copies the line.
 * Returns 0, or -1 when out of memory. */
int mw_transfer_add_header(mw_transfer *t, const char *line);
/* Hands the header list to the easy handle (CURLOPT_HTTPHEADER); the list
 * stays owned by the transfer. */
CURLcode mw_transfer_apply_headers(mw_transfer *t);
/* Sets the request body: libcurl copies `length` bytes (CURLOPT_COPYPOSTFIELDS
 * after CURLOPT_POSTFIELDSIZE_LARGE). `data` may be NULL when length is 0. */
CURLcode mw_transfer_set_body(mw_transfer *t, const void *data, size_t length);

/* The response body and the header block of the last response received
 * (raw lines, CRLF-terminated, status line first). Valid until free. */
const unsigned char *mw_transfer_body(const mw_transfer *t, size_t *length);
const char *mw_transfer_header_block(const mw_transfer *t, size_t *length);
/* 1 when the body or header limit was hit. */
int mw_transfer_too_large(const mw_transfer *t);
/* Number of response bytes (headers and body) received so far. */
size_t mw_transfer_bytes_received(const mw_transfer *t);
/* curl's detailed error message (CURLOPT_ERRORBUFFER), possibly empty. */
const char *mw_transfer_error_message(const mw_transfer *t);

/* Next finished transfer reported by curl_multi_info_read, with its result;
 * NULL when there is none left. */
mw_transfer *mw_curl_multi_next_done(CURLM *multi, CURLcode *result);

/* Refuse the request (CURLE_ABORTED_BY_CALLBACK) when the address curl
 * connected to is not a public unicast address; the address is then in
 * mw_transfer_refused_address. Checked on the connected socket, so DNS
 * rebinding cannot slip a private address past it. */
CURLcode mw_transfer_public_addresses_only(mw_transfer *t);
const char *mw_transfer_refused_address(const mw_transfer *t);
/* 1 when the textual IPv4/IPv6 address is not public unicast (or not an address). */
int mw_ip_is_private(const char *ip);

#endif
