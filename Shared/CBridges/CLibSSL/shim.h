#ifndef MAILWAKE_CLIBSSL_SHIM_H
#define MAILWAKE_CLIBSSL_SHIM_H
/* OpenSSL 3 libssl headers, for TLS and X.509 work in later modules. */
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/pem.h>
#endif
