/*
 * The public bridge: each call goes to the engine that made the server or
 * request (the `int engine` both engines' structs begin with).
 */
#include "mw_http_engines.h"

#include <stdio.h>

#define ENGINE_OF(p) (*(const int *)(const void *)(p))
#define DISPATCH(p, call) (ENGINE_OF(p) == MW_HTTP_ENGINE_EPOLL ? mw_ep_##call : mw_mhd_##call)

mw_http_server *mw_http_server_start(const mw_http_server_config *c, char *error, size_t error_len) {
    if (!c) {
        if (error && error_len) snprintf(error, error_len, "no server configuration");
        return NULL;
    }
    switch (c->engine) {
    case MW_HTTP_ENGINE_LIBMICROHTTPD: return mw_mhd_server_start(c, error, error_len);
    case MW_HTTP_ENGINE_EPOLL: return mw_ep_server_start(c, error, error_len);
    default:
        if (error && error_len) snprintf(error, error_len, "unknown HTTP engine %d", c->engine);
        return NULL;
    }
}

uint16_t mw_http_server_port(const mw_http_server *s) { return DISPATCH(s, server_port)(s); }
void mw_http_server_quiesce(mw_http_server *s) {
    if (s) DISPATCH(s, server_quiesce)(s);
}
int mw_http_server_stop(mw_http_server *s, unsigned int wait_ms) { return s ? DISPATCH(s, server_stop)(s, wait_ms) : 1; }

const char *mw_http_request_method(const mw_http_request *r) { return DISPATCH(r, request_method)(r); }
const char *mw_http_request_target(const mw_http_request *r) { return DISPATCH(r, request_target)(r); }
const char *mw_http_request_version(const mw_http_request *r) { return DISPATCH(r, request_version)(r); }
const char *mw_http_request_client_address(const mw_http_request *r) { return DISPATCH(r, request_client_address)(r); }
size_t mw_http_request_header_count(const mw_http_request *r) { return DISPATCH(r, request_header_count)(r); }
const char *mw_http_request_header_name(const mw_http_request *r, size_t i) { return DISPATCH(r, request_header_name)(r, i); }
const char *mw_http_request_header_value(const mw_http_request *r, size_t i) { return DISPATCH(r, request_header_value)(r, i); }
const uint8_t *mw_http_request_body(const mw_http_request *r) { return DISPATCH(r, request_body)(r); }
size_t mw_http_request_body_length(const mw_http_request *r) { return DISPATCH(r, request_body_length)(r); }
unsigned int mw_http_request_rejection(const mw_http_request *r) { return DISPATCH(r, request_rejection)(r); }

int mw_http_request_respond(mw_http_request *r, unsigned int status, const char *const *names, const char *const *values,
                            size_t count, const uint8_t *body, size_t body_length) {
    return DISPATCH(r, request_respond)(r, status, names, values, count, body, body_length);
}
