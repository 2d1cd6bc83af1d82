/* Typed libcurl shims for Swift; see include/mw_curl.h. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "mw_curl.h"

#include <arpa/inet.h>
#include <stdio.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* MARK: process-wide */

static pthread_once_t mw_global_once = PTHREAD_ONCE_INIT;
static CURLcode mw_global_result = CURLE_OK;

static void mw_global_init_once(void) { mw_global_result = curl_global_init(CURL_GLOBAL_DEFAULT); }

CURLcode mw_curl_global_init(void) {
    pthread_once(&mw_global_once, mw_global_init_once);
    return mw_global_result;
}

int mw_curl_supports_http2(void) {
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    return info != NULL && (info->features & CURL_VERSION_HTTP2) != 0;
}

const char *mw_curl_version(void) {
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    return info != NULL && info->version != NULL ? info->version : "unknown";
}

void mw_set_current_thread_name(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    (void)pthread_setname_np(pthread_self(), shortened);
}

/* MARK: typed setopt / getinfo */

CURLcode mw_curl_set_long(CURL *easy, CURLoption option, long value) { return curl_easy_setopt(easy, option, value); }
CURLcode mw_curl_set_off_t(CURL *easy, CURLoption option, curl_off_t value) { return curl_easy_setopt(easy, option, value); }
CURLcode mw_curl_set_string(CURL *easy, CURLoption option, const char *value) { return curl_easy_setopt(easy, option, value); }

CURLcode mw_curl_get_long(CURL *easy, CURLINFO info, long *out) { return curl_easy_getinfo(easy, info, out); }
CURLcode mw_curl_get_off_t(CURL *easy, CURLINFO info, curl_off_t *out) { return curl_easy_getinfo(easy, info, out); }
CURLcode mw_curl_get_string(CURL *easy, CURLINFO info, const char **out) { return curl_easy_getinfo(easy, info, out); }

CURLMcode mw_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) { return curl_multi_setopt(multi, option, value); }

/* MARK: transfer */

typedef struct {
    unsigned char *bytes;
    size_t length;
    size_t capacity;
    size_t limit;
} mw_buffer;

struct mw_transfer {
    uint64_t id;
    CURL *easy;
    struct curl_slist *headers;
    mw_buffer body;
    mw_buffer head;
    size_t received;
    int too_large;
    char error[CURL_ERROR_SIZE];
    char refused_address[64];
};

/* Appends n bytes; 0 on success, -1 when over the limit or out of memory. */
static int mw_buffer_append(mw_buffer *b, const void *data, size_t n) {
    if (n == 0) return 0;
    if (n > b->limit - b->length) return -1;
    if (b->length + n > b->capacity) {
        size_t want = b->capacity ? b->capacity : 1024;
        while (want < b->length + n) want = want > SIZE_MAX / 2 ? SIZE_MAX : want * 2;
        if (want > b->limit) want = b->limit;
        unsigned char *grown = realloc(b->bytes, want);
        if (grown == NULL) return -1;
        b->bytes = grown;
        b->capacity = want;
    }
    memcpy(b->bytes + b->length, data, n);
    b->length += n;
    return 0;
}

static size_t mw_on_body(char *data, size_t size, size_t count, void *userdata) {
    mw_transfer *t = userdata;
    size_t n = size * count;
    t->received += n;
    if (mw_buffer_append(&t->body, data, n) != 0) {
        if (n > t->body.limit - t->body.length) t->too_large = 1;
        return 0; /* anything but n: CURLE_WRITE_ERROR */
    }
    return n;
}

static size_t mw_on_header(char *data, size_t size, size_t count, void *userdata) {
    mw_transfer *t = userdata;
    size_t n = size * count;
    t->received += n;
    /* A new status line starts a new response (1xx, redirects followed): keep only the last. */
    if (n >= 5 && memcmp(data, "HTTP/", 5) == 0) t->head.length = 0;
    if (mw_buffer_append(&t->head, data, n) != 0) {
        if (n > t->head.limit - t->head.length) t->too_large = 1;
        return 0;
    }
    return n;
}

/* Readies a new or emptied transfer for request `id`: its limits, and the
 * options every transfer of this shim has, whatever the request. */
static int mw_transfer_start(mw_transfer *t, uint64_t id, size_t max_body, size_t max_header_bytes) {
    t->id = id;
    t->body.limit = max_body;
    t->head.limit = max_header_bytes;
    return curl_easy_setopt(t->easy, CURLOPT_PRIVATE, (void *)t) != CURLE_OK ||
        curl_easy_setopt(t->easy, CURLOPT_ERRORBUFFER, t->error) != CURLE_OK ||
        curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, mw_on_body) != CURLE_OK ||
        curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, (void *)t) != CURLE_OK ||
        curl_easy_setopt(t->easy, CURLOPT_HEADERFUNCTION, mw_on_header) != CURLE_OK ||
        curl_easy_setopt(t->easy, CURLOPT_HEADERDATA, (void *)t) != CURLE_OK ||
        curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
        curl_easy_setopt(t->easy, CURLOPT_NOPROGRESS, 1L) != CURLE_OK ? -1 : 0;
}

mw_transfer *mw_transfer_new(uint64_t id, size_t max_body, size_t max_header_bytes) {
    mw_transfer *t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    t->easy = curl_easy_init();
    if (t->easy == NULL) {
        free(t);
        return NULL;
    }
    if (mw_transfer_start(t, id, max_body, max_header_bytes) != 0) {
        mw_transfer_free(t);
        return NULL;
    }
    return t;
}

/* A buffer emptied for the next transfer; one that grew past `keep` bytes is released. */
static void mw_buffer_empty(mw_buffer *b, size_t keep) {
    if (b->capacity > keep) {
        free(b->bytes);
        b->bytes = NULL;
        b->capacity = 0;
    }
    b->length = 0;
}

int mw_transfer_recycle(mw_transfer *t, uint64_t id, size_t max_body, size_t max_header_bytes) {
    curl_easy_reset(t->easy); /* before the list the old options point to is freed */
    curl_slist_free_all(t->headers);
    t->headers = NULL;
    mw_buffer_empty(&t->body, 16384);
    mw_buffer_empty(&t->head, 4096);
    t->received = 0;
    t->too_large = 0;
    t->error[0] = 0;
    t->refused_address[0] = 0;
    return mw_transfer_start(t, id, max_body, max_header_bytes);
}

void mw_transfer_free(mw_transfer *t) {
    if (t == NULL) return;
    if (t->easy != NULL) curl_easy_cleanup(t->easy); /* before the list it may still point to */
    curl_slist_free_all(t->headers);
    free(t->body.bytes);
    free(t->head.bytes);
    free(t);
}

uint64_t mw_transfer_id(const mw_transfer *t) { return t->id; }
CURL *mw_transfer_easy(mw_transfer *t) { return t->easy; }

int mw_transfer_add_header(mw_transfer *t, const char *line) {
    struct curl_slist *next = curl_slist_append(t->headers, line);
    if (next == NULL) return -1;
    t->headers = next;
    return 0;
}

CURLcode mw_transfer_apply_headers(mw_transfer *t) { return curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers); }

CURLcode mw_transfer_set_body(mw_transfer *t, const void *data, size_t length) {
    CURLcode rc = curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
    if (rc != CURLE_OK) return rc;
    /* COPYPOSTFIELDS needs a non-NULL pointer even for an empty body. */
    return curl_easy_setopt(t->easy, CURLOPT_COPYPOSTFIELDS, data != NULL ? data : (const void *)"");
}

const unsigned char *mw_transfer_body(const mw_transfer *t, size_t *length) {
    *length = t->body.length;
    return t->body.bytes;
}

const char *mw_transfer_header_block(const mw_transfer *t, size_t *length) {
    *length = t->head.length;
    return (const char *)t->head.bytes;
}

int mw_transfer_too_large(const mw_transfer *t) { return t->too_large; }
size_t mw_transfer_bytes_received(const mw_transfer *t) { return t->received; }
const char *mw_transfer_error_message(const mw_transfer *t) { return t->error; }

mw_transfer *mw_curl_multi_next_done(CURLM *multi, CURLcode *result) {
    int queued = 0;
    CURLMsg *msg;
    while ((msg = curl_multi_info_read(multi, &queued)) != NULL) {
        if (msg->msg != CURLMSG_DONE) continue;
        char *priv = NULL;
        if (curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv) != CURLE_OK || priv == NULL) continue;
        *result = msg->data.result;
        return (mw_transfer *)(void *)priv;
    }
    return NULL;
}

/* MARK: public addresses only (SSRF guard) */

/* 1 when `ip` (text) is loopback, private, link-local, unique-local, CGNAT,
 * multicast, unspecified or otherwise not a public unicast address. */
int mw_ip_is_private(const char *ip) {
    unsigned char a[16];
    if (inet_pton(AF_INET, ip, a) == 1) {
        if (a[0] == 0 || a[0] == 10 || a[0] == 127 || a[0] >= 224) return 1;           /* this net, private, loopback, multicast, reserved */
        if (a[0] == 169 && a[1] == 254) return 1;                                        /* link-local */
        if (a[0] == 172 && (a[1] & 0xF0) == 16) return 1;                                /* 172.16/12 */
        if (a[0] == 192 && a[1] == 168) return 1;                                        /* 192.168/16 */
        if (a[0] == 100 && (a[1] & 0xC0) == 64) return 1;                                /* CGNAT 100.64/10 */
        if (a[0] == 192 && a[1] == 0 && (a[2] == 0 || a[2] == 2)) return 1;              /* IETF, TEST-NET-1 */
        if (a[0] == 198 && (a[1] == 18 || a[1] == 19)) return 1;                         /* benchmarking */
        if ((a[0] == 198 && a[1] == 51 && a[2] == 100) || (a[0] == 203 && a[1] == 0 && a[2] == 113)) return 1;
        return 0;
    }
    if (inet_pton(AF_INET6, ip, a) == 1) {
        static const unsigned char zero[16] = {0};
        if (memcmp(a, zero, 15) == 0 && (a[15] == 0 || a[15] == 1)) return 1;           /* :: and ::1 */
        if (a[0] == 0xFF) return 1;                                                      /* multicast */
        if ((a[0] & 0xFE) == 0xFC) return 1;                                             /* unique local fc00::/7 */
        if (a[0] == 0xFE && (a[1] & 0xC0) == 0x80) return 1;                             /* link-local fe80::/10 */
        if (memcmp(a, zero, 10) == 0 && a[10] == 0xFF && a[11] == 0xFF) {               /* IPv4-mapped */
            char v4[INET_ADDRSTRLEN];
            if (inet_ntop(AF_INET, a + 12, v4, sizeof v4) == NULL) return 1;
            return mw_ip_is_private(v4);
        }
        if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0D && a[3] == 0xB8) return 1;      /* documentation */
        /* Addresses that carry or reach an IPv4 address some other way: a
         * translator or relay would take the request to whatever IPv4 address
         * is embedded (127.0.0.1, 10.x…), so none of them counts as public. */
        if (memcmp(a, zero, 12) == 0) return 1;                                          /* IPv4-compatible ::a.b.c.d (deprecated) */
        if (a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xFF && a[3] == 0x9B &&
            (memcmp(a + 4, zero, 8) == 0 || (a[4] == 0x00 && a[5] == 0x01))) return 1;  /* NAT64 64:ff9b::/96, 64:ff9b:1::/48 */
        if (a[0] == 0x20 && a[1] == 0x02) return 1;                                      /* 6to4 2002::/16 */
        if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x00 && a[3] == 0x00) return 1;      /* Teredo 2001::/32 */
        if (a[0] == 0xFE && (a[1] & 0xC0) == 0xC0) return 1;                             /* site-local fec0::/10 (deprecated) */
        return 0;
    }
    return 1; /* not an address: refuse */
}

static int mw_prereq_public_only(void *clientp, char *primary_ip, char *local_ip, int primary_port, int local_port) {
    (void)local_ip;
    (void)primary_port;
    (void)local_port;
    mw_transfer *t = clientp;
    if (primary_ip == NULL || mw_ip_is_private(primary_ip)) {
        snprintf(t->refused_address, sizeof t->refused_address, "%s", primary_ip ? primary_ip : "?");
        return CURL_PREREQFUNC_ABORT;
    }
    return CURL_PREREQFUNC_OK;
}

CURLcode mw_transfer_public_addresses_only(mw_transfer *t) {
    CURLcode rc = curl_easy_setopt(t->easy, CURLOPT_PREREQFUNCTION, mw_prereq_public_only);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(t->easy, CURLOPT_PREREQDATA, (void *)t);
}

const char *mw_transfer_refused_address(const mw_transfer *t) { return t->refused_address; }
