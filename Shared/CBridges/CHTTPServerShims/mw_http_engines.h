#ifndef MAILWAKE_MW_HTTP_ENGINES_H
#define MAILWAKE_MW_HTTP_ENGINES_H
/*
 * The two engines behind include/mw_http_server.h. Each engine's server and
 * request structs begin with `int engine` (MW_HTTP_ENGINE_*), which the
 * public functions in mw_http_server.c read to dispatch.
 */
#include "mw_http_server.h"

#define MW_HTTP_ENGINE_DECLARE(prefix)                                                                             \
    mw_http_server *prefix##_server_start(const mw_http_server_config *config, char *error, size_t error_len);     \
    uint16_t prefix##_server_port(const mw_http_server *server);                                                   \
    void prefix##_server_quiesce(mw_http_server *server);                                                          \
    int prefix##_server_stop(mw_http_server *server, unsigned int wait_ms);                                        \
    const char *prefix##_request_method(const mw_http_request *request);                                           \
    const char *prefix##_request_target(const mw_http_request *request);                                           \
    const char *prefix##_request_version(const mw_http_request *request);                                          \
    const char *prefix##_request_client_address(const mw_http_request *request);                                   \
    size_t prefix##_request_header_count(const mw_http_request *request);                                          \
    const char *prefix##_request_header_name(const mw_http_request *request, size_t index);                        \
    const char *prefix##_request_header_value(const mw_http_request *request, size_t index);                       \
    const uint8_t *prefix##_request_body(const mw_http_request *request);                                          \
    size_t prefix##_request_body_length(const mw_http_request *request);                                           \
    unsigned int prefix##_request_rejection(const mw_http_request *request);                                       \
    int prefix##_request_respond(mw_http_request *request, unsigned int status, const char *const *header_names,   \
                                 const char *const *header_values, size_t header_count, const uint8_t *body,       \
                                 size_t body_length);

MW_HTTP_ENGINE_DECLARE(mw_mhd)
MW_HTTP_ENGINE_DECLARE(mw_ep)

#endif
