/*
 * The epoll HTTP engine (Shared/CBridges/CHTTPServerShims/mw_http_epoll.c) on its own, for the
 * sanitizers: scripts/fuzz-http-engine builds it with AddressSanitizer and UndefinedBehaviorSanitizer
 * and drives it with fuzz_client.py.
 *
 * usage: fuzz_server PORT plain|tls SECONDS [CERT KEY]
 *
 * Requests whose target has an even length are answered inline, on the I/O thread; the others are
 * answered from a second thread within a few milliseconds, so answers cross threads and batch. Every
 * header and body byte is read before answering (the sanitizers check the pointers). After SECONDS
 * the rest are answered and the engine is stopped; exit status 0 when it stopped cleanly.
 */
#include "mw_http_engines.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HELD_MAX 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static mw_http_request *held[HELD_MAX];
static int held_count;
static atomic_long answered;

static void answer(mw_http_request *r) {
    size_t sum = 0;
    for (size_t i = 0; i < mw_ep_request_header_count(r); i++)
        sum += strlen(mw_ep_request_header_name(r, i)) + strlen(mw_ep_request_header_value(r, i));
    const uint8_t *body = mw_ep_request_body(r);
    for (size_t i = 0; i < mw_ep_request_body_length(r); i++) sum += body[i];
    char text[160];
    int n = snprintf(text, sizeof text, "%.40s %zu %u %zu", mw_ep_request_method(r), mw_ep_request_body_length(r),
                     mw_ep_request_rejection(r), sum);
    if (n < 0 || n >= (int)sizeof text) n = (int)sizeof text - 1;
    const char *names[] = {"Content-Type", "X-Echo"};
    const char *values[] = {"text/plain", mw_ep_request_header_count(r) ? mw_ep_request_header_value(r, 0) : "none"};
    mw_ep_request_respond(r, 200, names, values, 2, (const uint8_t *)text, (size_t)n);
    atomic_fetch_add(&answered, 1);
}

static int take_held(mw_http_request **out) {
    pthread_mutex_lock(&lock);
    int n = held_count;
    memcpy(out, held, sizeof(mw_http_request *) * (size_t)n);
    held_count = 0;
    pthread_mutex_unlock(&lock);
    return n;
}

static void *answerer(void *arg) {
    (void)arg;
    static mw_http_request *batch[HELD_MAX];
    for (;;) {
        usleep(2000);
        int n = take_held(batch);
        for (int i = 0; i < n; i++) answer(batch[i]);
    }
    return NULL;
}

static void on_request(void *ctx, mw_http_request *r) {
    (void)ctx;
    if (strlen(mw_ep_request_target(r)) % 2 == 0) {
        answer(r);
        return;
    }
    pthread_mutex_lock(&lock);
    int kept = held_count < HELD_MAX;
    if (kept) held[held_count++] = r;
    pthread_mutex_unlock(&lock);
    if (!kept) answer(r);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char *text = calloc(1, 65536);
    size_t n = text ? fread(text, 1, 65535, f) : 0;
    (void)n;
    fclose(f);
    return text;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: fuzz_server PORT plain|tls SECONDS [CERT KEY]\n");
        return 2;
    }
    mw_http_server_config c = {0};
    c.engine = MW_HTTP_ENGINE_EPOLL;
    c.bind_address = "127.0.0.1";
    c.port = (uint16_t)atoi(argv[1]);
    c.thread_pool_size = 2;
    c.connection_limit = 200;
    c.per_ip_connection_limit = 150;
    c.connection_memory_limit = 4096;
    c.idle_timeout_seconds = 2;
    c.max_body_bytes = 20000;
    c.on_request = on_request;
    char *certificate = NULL, *key = NULL;
    if (strcmp(argv[2], "tls") == 0) {
        if (argc < 6 || !(certificate = read_file(argv[4])) || !(key = read_file(argv[5]))) {
            fprintf(stderr, "fuzz_server: tls needs CERT and KEY files\n");
            return 2;
        }
        c.certificate_pem = certificate;
        c.private_key_pem = key;
    }
    char error[256];
    mw_http_server *server = mw_ep_server_start(&c, error, sizeof error);
    if (!server) {
        fprintf(stderr, "fuzz_server: %s\n", error);
        return 2;
    }
    printf("listening\n");
    fflush(stdout);
    pthread_t thread;
    pthread_create(&thread, NULL, answerer, NULL);
    sleep((unsigned)atoi(argv[3]));
    static mw_http_request *rest[HELD_MAX];
    int n = take_held(rest);
    for (int i = 0; i < n; i++) answer(rest[i]);
    int stopped = mw_ep_server_stop(server, 5000);
    fprintf(stderr, "fuzz_server: answered %ld, stopped %d\n", atomic_load(&answered), stopped);
    free(certificate);
    free(key);
    return stopped == 1 ? 0 : 1;
}
