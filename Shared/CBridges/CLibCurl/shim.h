#ifndef MAILWAKE_CLIBCURL_SHIM_H
#define MAILWAKE_CLIBCURL_SHIM_H
/* libcurl (GnuTLS flavour, see docs/dependencies.md). Swift calls CCurlShims, never the variadic setopt. */
#include <curl/curl.h>
#endif
