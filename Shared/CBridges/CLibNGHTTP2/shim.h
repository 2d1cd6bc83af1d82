#ifndef MAILWAKE_CLIBNGHTTP2_SHIM_H
#define MAILWAKE_CLIBNGHTTP2_SHIM_H
/* libnghttp2 (HTTP/2 framing), used by the server side of CH2ServerShims only. */
#include <nghttp2/nghttp2.h>
#endif
