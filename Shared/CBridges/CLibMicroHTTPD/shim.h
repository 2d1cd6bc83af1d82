#ifndef MAILWAKE_CLIBMHD_SHIM_H
#define MAILWAKE_CLIBMHD_SHIM_H
/* libmicrohttpd. Swift calls CMicroHTTPDShims, never the variadic start call. */
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
#endif
