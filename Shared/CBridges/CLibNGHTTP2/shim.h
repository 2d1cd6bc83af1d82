#ifndef MAILWAKE_CLIBNGHTTP2_SHIM_H
#define MAILWAKE_CLIBNGHTTP2_SHIM_H
/* libnghttp2 (HTTP/2 framing): the APNs simulator's server (CH2ServerShims) and the relay's APNs client (CH2ClientShims). */
#include <nghttp2/nghttp2.h>
#endif
