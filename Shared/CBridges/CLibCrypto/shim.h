#ifndef MAILWAKE_CLIBCRYPTO_SHIM_H
#define MAILWAKE_CLIBCRYPTO_SHIM_H
/* OpenSSL 3 libcrypto headers. Swift never calls these directly: it goes
 * through COpenSSLShims, which exposes plain functions. */
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#endif
