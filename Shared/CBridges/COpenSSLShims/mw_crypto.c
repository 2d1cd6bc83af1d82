/*
 * OpenSSL 3 libcrypto bridge for Mailwake. See include/mw_crypto.h for the
 * contract. Every OpenSSL object allocated here is freed here.
 */
#include "mw_crypto.h"

#include <limits.h>
#include <pthread.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/obj_mac.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

/* mw_key is an EVP_PKEY; the cast happens only in this file. */
#define PKEY(k) ((EVP_PKEY *)(k))
#define MWKEY(p) ((mw_key *)(p))

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_ready = 0;
static EVP_MD *g_sha256 = NULL;
static EVP_CIPHER *g_aes256gcm = NULL;
static EVP_CIPHER *g_aes256cbc = NULL;
static EVP_MAC *g_hmac = NULL;
static EVP_MAC_CTX *g_hmac_template = NULL;
static EVP_KDF *g_hkdf = NULL;
static EVP_KDF_CTX *g_hkdf_template = NULL;
static int g_hkdf_dup_ok = 0; /* OpenSSL 3.0's HKDF cannot be duplicated; 3.1+ can */
static EC_GROUP *g_p256 = NULL;
static BIGNUM *g_order = NULL;

/* A non-NULL pointer for zero-length inputs (OpenSSL treats NULL specially). */
static const uint8_t g_empty[1] = {0};
#define NONNULL(p) ((p) != NULL ? (const void *)(p) : (const void *)g_empty)
/* Whether (p, len) names readable bytes: NULL only with a length of 0. */
#define BUFFER_OK(p, len) ((p) != NULL || (len) == 0)

/* OpenSSL frees its global state in an atexit handler. Swift programs exit
 * while other threads may still release keys or contexts (a task's last
 * reference going away), which then touch freed state: a double free at exit.
 * Opting out when the library loads, before any other OpenSSL call, leaves
 * the process's end to the kernel. */
__attribute__((constructor)) static void mw_crypto_no_atexit(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

static void mw_init_once(void) {
    g_sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    g_aes256gcm = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
    g_aes256cbc = EVP_CIPHER_fetch(NULL, "AES-256-CBC", NULL);
    g_hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    g_hkdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    g_p256 = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    g_order = BN_new();
    if (!g_sha256 || !g_aes256gcm || !g_aes256cbc || !g_hmac || !g_hkdf || !g_p256 || !g_order) {
        return;
    }
    if (EC_GROUP_get_order(g_p256, g_order, NULL) != 1) {
        return;
    }
    char digest[] = "SHA256";
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_end();
    g_hmac_template = EVP_MAC_CTX_new(g_hmac);
    if (!g_hmac_template || EVP_MAC_CTX_set_params(g_hmac_template, params) != 1) {
        return;
    }
    OSSL_PARAM kparams[2];
    kparams[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
    kparams[1] = OSSL_PARAM_construct_end();
    g_hkdf_template = EVP_KDF_CTX_new(g_hkdf);
    if (!g_hkdf_template || EVP_KDF_CTX_set_params(g_hkdf_template, kparams) != 1) {
        return;
    }
    EVP_KDF_CTX *probe = EVP_KDF_CTX_dup(g_hkdf_template);
    g_hkdf_dup_ok = probe != NULL;
    EVP_KDF_CTX_free(probe);
    ERR_clear_error();
    g_ready = 1;
}

/* A fresh HKDF-SHA256 context: a copy of the template when the provider can
 * duplicate, otherwise a new context with the digest set. */
static EVP_KDF_CTX *new_hkdf_ctx(void) {
    if (g_hkdf_dup_ok) return EVP_KDF_CTX_dup(g_hkdf_template);
    EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(g_hkdf);
    if (!ctx) return NULL;
    char digest[] = "SHA256";
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_end();
    if (EVP_KDF_CTX_set_params(ctx, params) != 1) {
        EVP_KDF_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

int mw_crypto_init(void) {
    pthread_once(&g_once, mw_init_once);
    return g_ready ? 1 : -1;
}

#define REQUIRE_INIT() do { if (mw_crypto_init() != 1) return -1; } while (0)
#define REQUIRE_INIT_NULL() do { if (mw_crypto_init() != 1) return NULL; } while (0)

void mw_clear_errors(void) { ERR_clear_error(); }

/* MARK: Keys */

/* Builds an EC key from an optional private scalar and a public point. */
static EVP_PKEY *build_p256(const BIGNUM *priv, const uint8_t *pub, size_t publen) {
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    if (!bld) goto done;
    if (OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) != 1) goto done;
    if (OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, publen) != 1) goto done;
    if (priv && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv) != 1) goto done;
    params = OSSL_PARAM_BLD_to_param(bld);
    if (!params) goto done;
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (!ctx || EVP_PKEY_fromdata_init(ctx) != 1) goto done;
    if (EVP_PKEY_fromdata(ctx, &pkey, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) != 1) {
        pkey = NULL;
    }
done:
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params); /* secure-heap copy of the scalar when it came from a secure BN */
    OSSL_PARAM_BLD_free(bld);
    return pkey;
}

mw_key *mw_p256_generate(void) {
    REQUIRE_INIT_NULL();
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (!ctx) goto fail;
    if (EVP_PKEY_keygen_init(ctx) != 1) goto fail;
    if (EVP_PKEY_CTX_set_group_name(ctx, "prime256v1") != 1) goto fail;
    if (EVP_PKEY_generate(ctx, &pkey) != 1) goto fail;
    EVP_PKEY_CTX_free(ctx);
    return MWKEY(pkey);
fail:
    EVP_PKEY_CTX_free(ctx);
    ERR_clear_error();
    return NULL;
}

mw_key *mw_p256_private_from_raw(const uint8_t *scalar, size_t len) {
    REQUIRE_INIT_NULL();
    if (!scalar || len != 32) return NULL;
    EVP_PKEY *pkey = NULL;
    EC_POINT *pub = NULL;
    uint8_t pubbuf[65];
    BIGNUM *d = BN_secure_new();
    if (!d || !BN_bin2bn(scalar, 32, d)) goto done;
    if (BN_is_zero(d) || BN_cmp(d, g_order) >= 0) goto done;
    pub = EC_POINT_new(g_p256);
    if (!pub || EC_POINT_mul(g_p256, pub, d, NULL, NULL, NULL) != 1) goto done;
    if (EC_POINT_point2oct(g_p256, pub, POINT_CONVERSION_UNCOMPRESSED, pubbuf, sizeof pubbuf, NULL) != 65) goto done;
    pkey = build_p256(d, pubbuf, sizeof pubbuf);
done:
    EC_POINT_free(pub);
    BN_clear_free(d);
    if (!pkey) ERR_clear_error();
    return MWKEY(pkey);
}

/* Validates an uncompressed encoding as a point on P-256 (not infinity). */
static int validate_x963(const uint8_t *point, size_t len) {
    if (!point || len != 65 || point[0] != 0x04) return 0;
    EC_POINT *p = EC_POINT_new(g_p256);
    int ok = 0;
    if (p && EC_POINT_oct2point(g_p256, p, point, len, NULL) == 1
        && EC_POINT_is_at_infinity(g_p256, p) == 0
        && EC_POINT_is_on_curve(g_p256, p, NULL) == 1) {
        ok = 1;
    }
    EC_POINT_free(p);
    if (!ok) ERR_clear_error();
    return ok;
}

mw_key *mw_p256_public_from_x963(const uint8_t *point, size_t len) {
    REQUIRE_INIT_NULL();
    if (!validate_x963(point, len)) return NULL;
    EVP_PKEY *pkey = build_p256(NULL, point, len);
    if (!pkey) ERR_clear_error();
    return MWKEY(pkey);
}

/* 1 when pkey is an EC key on P-256. */
static int is_p256(EVP_PKEY *pkey) {
    char name[64] = {0};
    size_t namelen = 0;
    if (EVP_PKEY_is_a(pkey, "EC") != 1) return 0;
    if (EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof name, &namelen) != 1) return 0;
    return strcmp(name, "prime256v1") == 0;
}

mw_key *mw_p256_private_from_pkcs8(const uint8_t *der, size_t len) {
    REQUIRE_INIT_NULL();
    if (!der || len == 0 || len > 4096) return NULL;
    const unsigned char *p = der;
    EVP_PKEY *pkey = NULL;
    PKCS8_PRIV_KEY_INFO *p8 = d2i_PKCS8_PRIV_KEY_INFO(NULL, &p, (long)len);
    if (!p8) goto fail;
    if (p != der + len) goto fail; /* trailing bytes */
    pkey = EVP_PKCS82PKEY(p8);
    if (!pkey || !is_p256(pkey)) goto fail;
    PKCS8_PRIV_KEY_INFO_free(p8);
    /* Re-derive through the raw path so the scalar range and public key are checked. */
    uint8_t raw[32];
    BIGNUM *d = NULL;
    mw_key *out = NULL;
    if (EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_PRIV_KEY, &d) == 1 && BN_num_bytes(d) <= 32
        && BN_bn2binpad(d, raw, 32) == 32) {
        out = mw_p256_private_from_raw(raw, 32);
    }
    OPENSSL_cleanse(raw, sizeof raw);
    BN_clear_free(d);
    EVP_PKEY_free(pkey);
    ERR_clear_error();
    return out;
fail:
    PKCS8_PRIV_KEY_INFO_free(p8);
    EVP_PKEY_free(pkey);
    ERR_clear_error();
    return NULL;
}

void mw_key_free(mw_key *key) { EVP_PKEY_free(PKEY(key)); }

int mw_key_has_private(const mw_key *key) {
    BIGNUM *d = NULL;
    int has = EVP_PKEY_get_bn_param(PKEY(key), OSSL_PKEY_PARAM_PRIV_KEY, &d) == 1;
    BN_clear_free(d);
    ERR_clear_error();
    return has;
}

int mw_p256_export_raw_private(const mw_key *key, uint8_t out[32]) {
    BIGNUM *d = NULL;
    int rc = -1;
    if (!key) return -1;
    if (EVP_PKEY_get_bn_param(PKEY(key), OSSL_PKEY_PARAM_PRIV_KEY, &d) == 1
        && BN_bn2binpad(d, out, 32) == 32) {
        rc = 1;
    }
    BN_clear_free(d);
    if (rc != 1) ERR_clear_error();
    return rc;
}

int mw_p256_export_x963(const mw_key *key, uint8_t out[65]) {
    REQUIRE_INIT();
    uint8_t buf[133];
    size_t len = 0;
    int rc = -1;
    EC_POINT *p = NULL;
    if (!key) return -1;
    if (EVP_PKEY_get_octet_string_param(PKEY(key), OSSL_PKEY_PARAM_PUB_KEY, buf, sizeof buf, &len) != 1) goto done;
    /* Normalise whatever form the key carries to the uncompressed one. */
    p = EC_POINT_new(g_p256);
    if (!p || EC_POINT_oct2point(g_p256, p, buf, len, NULL) != 1) goto done;
    if (EC_POINT_point2oct(g_p256, p, POINT_CONVERSION_UNCOMPRESSED, out, 65, NULL) != 65) goto done;
    rc = 1;
done:
    EC_POINT_free(p);
    if (rc != 1) ERR_clear_error();
    return rc;
}

int mw_p256_export_pkcs8(const mw_key *key, uint8_t *out, size_t cap, size_t *written) {
    int rc = -1;
    int len = 0;
    unsigned char *der = NULL;
    PKCS8_PRIV_KEY_INFO *p8 = NULL;
    if (!key || !out || !written) return -1;
    p8 = EVP_PKEY2PKCS8(PKEY(key));
    if (!p8) goto done;
    len = i2d_PKCS8_PRIV_KEY_INFO(p8, &der);
    if (len <= 0 || (size_t)len > cap) goto done;
    memcpy(out, der, (size_t)len);
    *written = (size_t)len;
    rc = 1;
done:
    if (der) OPENSSL_clear_free(der, (size_t)len);
    PKCS8_PRIV_KEY_INFO_free(p8);
    if (rc != 1) ERR_clear_error();
    return rc;
}

/* MARK: ECDSA */

int mw_ecdsa_der_to_raw(const uint8_t *der, size_t len, uint8_t raw[64]) {
    const unsigned char *p = der;
    const BIGNUM *r = NULL, *s = NULL;
    int rc = -1;
    if (!der || len == 0 || len > 80) return -1;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)len);
    if (!sig || p != der + len) goto done;
    ECDSA_SIG_get0(sig, &r, &s);
    if (BN_num_bytes(r) > 32 || BN_num_bytes(s) > 32) goto done;
    if (BN_bn2binpad(r, raw, 32) != 32 || BN_bn2binpad(s, raw + 32, 32) != 32) goto done;
    rc = 1;
done:
    ECDSA_SIG_free(sig);
    if (rc != 1) ERR_clear_error();
    return rc;
}

int mw_ecdsa_raw_to_der(const uint8_t raw[64], uint8_t *out, size_t cap, size_t *written) {
    int rc = -1;
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, 32, NULL);
    BIGNUM *s = BN_bin2bn(raw + 32, 32, NULL);
    if (!sig || !r || !s) goto done;
    if (ECDSA_SIG_set0(sig, r, s) != 1) goto done;
    r = s = NULL; /* owned by sig now */
    int len = i2d_ECDSA_SIG(sig, NULL);
    if (len <= 0 || (size_t)len > cap) goto done;
    unsigned char *p = out;
    if (i2d_ECDSA_SIG(sig, &p) != len) goto done;
    *written = (size_t)len;
    rc = 1;
done:
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(sig);
    if (rc != 1) ERR_clear_error();
    return rc;
}

int mw_ecdsa_sign_digest(const mw_key *key, const uint8_t digest[32], uint8_t sig[64]) {
    REQUIRE_INIT();
    int rc = -1;
    uint8_t der[80];
    size_t derlen = sizeof der;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, PKEY(key), NULL);
    if (!ctx || EVP_PKEY_sign_init(ctx) != 1) goto done;
    if (EVP_PKEY_sign(ctx, der, &derlen, digest, 32) != 1) goto done;
    rc = mw_ecdsa_der_to_raw(der, derlen, sig);
done:
    EVP_PKEY_CTX_free(ctx);
    if (rc != 1) ERR_clear_error();
    return rc;
}

int mw_ecdsa_sign(const mw_key *key, const uint8_t *msg, size_t len, uint8_t sig[64]) {
    uint8_t digest[32];
    if (mw_sha256(msg, len, digest) != 1) return -1;
    return mw_ecdsa_sign_digest(key, digest, sig);
}

int mw_ecdsa_verify_digest(const mw_key *key, const uint8_t digest[32], const uint8_t *sig, size_t siglen) {
    REQUIRE_INIT();
    if (!sig || siglen != 64) return 0;
    uint8_t der[80];
    size_t derlen = 0;
    if (mw_ecdsa_raw_to_der(sig, der, sizeof der, &derlen) != 1) return 0;
    int rc = -1;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, PKEY(key), NULL);
    if (!ctx || EVP_PKEY_verify_init(ctx) != 1) goto done;
    rc = EVP_PKEY_verify(ctx, der, derlen, digest, 32) == 1 ? 1 : 0;
done:
    EVP_PKEY_CTX_free(ctx);
    ERR_clear_error();
    return rc;
}

int mw_ecdsa_verify(const mw_key *key, const uint8_t *msg, size_t len, const uint8_t *sig, size_t siglen) {
    uint8_t digest[32];
    if (mw_sha256(msg, len, digest) != 1) return -1;
    return mw_ecdsa_verify_digest(key, digest, sig, siglen);
}

/* MARK: ECDH */

int mw_ecdh(const mw_key *priv, const mw_key *peer, uint8_t out[32]) {
    REQUIRE_INIT();
    int rc = -1;
    size_t len = 32;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, PKEY(priv), NULL);
    if (!ctx || EVP_PKEY_derive_init(ctx) != 1) goto done;
    /* The peer point was validated when its handle was created. */
    if (EVP_PKEY_derive_set_peer_ex(ctx, PKEY(peer), 0) != 1) goto done;
    if (EVP_PKEY_derive(ctx, out, &len) != 1 || len != 32) goto done;
    rc = 1;
done:
    EVP_PKEY_CTX_free(ctx);
    if (rc != 1) ERR_clear_error();
    return rc;
}

/* MARK: Hashes, MAC, KDF */

int mw_sha256(const uint8_t *data, size_t len, uint8_t out[32]) {
    REQUIRE_INIT();
    if (!out || !BUFFER_OK(data, len)) return -1;
    unsigned int outlen = 0;
    if (EVP_Digest(NONNULL(data), len, out, &outlen, g_sha256, NULL) != 1 || outlen != 32) {
        ERR_clear_error();
        return -1;
    }
    return 1;
}

struct mw_sha256_ctx { EVP_MD_CTX *md; };

mw_sha256_ctx *mw_sha256_new(void) {
    REQUIRE_INIT_NULL();
    mw_sha256_ctx *ctx = OPENSSL_zalloc(sizeof *ctx);
    if (!ctx) return NULL;
    ctx->md = EVP_MD_CTX_new();
    if (!ctx->md || EVP_DigestInit_ex2(ctx->md, g_sha256, NULL) != 1) {
        EVP_MD_CTX_free(ctx->md);
        OPENSSL_free(ctx);
        ERR_clear_error();
        return NULL;
    }
    return ctx;
}

int mw_sha256_update(mw_sha256_ctx *ctx, const uint8_t *data, size_t len) {
    if (!ctx || !BUFFER_OK(data, len)) return -1;
    return EVP_DigestUpdate(ctx->md, NONNULL(data), len) == 1 ? 1 : -1;
}

int mw_sha256_final(mw_sha256_ctx *ctx, uint8_t out[32]) {
    unsigned int outlen = 0;
    return (EVP_DigestFinal_ex(ctx->md, out, &outlen) == 1 && outlen == 32) ? 1 : -1;
}

void mw_sha256_free(mw_sha256_ctx *ctx) {
    if (!ctx) return;
    EVP_MD_CTX_free(ctx->md);
    OPENSSL_free(ctx);
}

int mw_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *data, size_t len, uint8_t out[32]) {
    REQUIRE_INIT();
    if (!out || !BUFFER_OK(key, keylen) || !BUFFER_OK(data, len)) return -1;
    int rc = -1;
    size_t outlen = 0;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_dup(g_hmac_template);
    if (!ctx) goto done;
    if (EVP_MAC_init(ctx, NONNULL(key), keylen, NULL) != 1) goto done;
    if (EVP_MAC_update(ctx, NONNULL(data), len) != 1) goto done;
    if (EVP_MAC_final(ctx, out, &outlen, 32) != 1 || outlen != 32) goto done;
    rc = 1;
done:
    EVP_MAC_CTX_free(ctx);
    if (rc != 1) ERR_clear_error();
    return rc;
}

int mw_hkdf_sha256(const uint8_t *ikm, size_t ikmlen, const uint8_t *salt, size_t saltlen,
                   const uint8_t *info, size_t infolen, uint8_t *out, size_t outlen) {
    REQUIRE_INIT();
    if (!out || outlen == 0 || outlen > 255 * 32 || ikmlen == 0) return -1;
    if (!BUFFER_OK(ikm, ikmlen) || !BUFFER_OK(salt, saltlen) || !BUFFER_OK(info, infolen)) return -1;
    int rc = -1;
    OSSL_PARAM params[4];
    int n = 0;
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)NONNULL(ikm), ikmlen);
    if (saltlen > 0) {
        params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, saltlen);
    }
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)NONNULL(info), infolen);
    params[n] = OSSL_PARAM_construct_end();
    EVP_KDF_CTX *ctx = new_hkdf_ctx();
    if (!ctx) goto done;
    if (EVP_KDF_derive(ctx, out, outlen, params) != 1) goto done;
    rc = 1;
done:
    EVP_KDF_CTX_free(ctx);
    if (rc != 1) ERR_clear_error();
    return rc;
}

/* MARK: scrypt */

int mw_scrypt(const uint8_t *pass, size_t passlen, const uint8_t *salt, size_t saltlen,
              unsigned log2_n, uint32_t r, uint32_t p, uint8_t *out, size_t outlen) {
    REQUIRE_INIT();
    if (!out || outlen == 0 || log2_n == 0 || log2_n > 30 || r == 0 || p == 0) return -1;
    if (!BUFFER_OK(pass, passlen) || !BUFFER_OK(salt, saltlen)) return -1;
    uint64_t n = (uint64_t)1 << log2_n;
    /* OpenSSL refuses more than maxmem; allow what these parameters need and a margin. */
    uint64_t maxmem = 128 * (uint64_t)r * (n + (uint64_t)p + 2) + (1u << 20);
    int rc = EVP_PBE_scrypt((const char *)NONNULL(pass), passlen, NONNULL(salt), saltlen, n, r, p, maxmem, out, outlen) == 1 ? 1 : -1;
    if (rc != 1) ERR_clear_error();
    return rc;
}

/* MARK: AES-256-GCM */

int mw_aes256gcm_seal(const uint8_t key[32], const uint8_t nonce[12],
                      const uint8_t *aad, size_t aadlen,
                      const uint8_t *pt, size_t ptlen, uint8_t *out) {
    REQUIRE_INIT();
    if (!key || !nonce || !out || !BUFFER_OK(aad, aadlen) || !BUFFER_OK(pt, ptlen)) return -1;
    if (ptlen > INT_MAX / 2 || aadlen > INT_MAX / 2) return -1;
    int rc = -1, len = 0, fin = 0, aadout = 0; /* the AAD update reports its own length */
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) goto done;
    if (EVP_EncryptInit_ex2(ctx, g_aes256gcm, key, nonce, NULL) != 1) goto done;
    if (aadlen > 0 && EVP_EncryptUpdate(ctx, NULL, &aadout, aad, (int)aadlen) != 1) goto done;
    if (ptlen > 0 && EVP_EncryptUpdate(ctx, out, &len, pt, (int)ptlen) != 1) goto done;
    if (EVP_EncryptFinal_ex(ctx, out + len, &fin) != 1) goto done;
    if ((size_t)(len + fin) != ptlen) goto done;
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, out + ptlen) != 1) goto done;
    rc = 1;
done:
    EVP_CIPHER_CTX_free(ctx);
    if (rc != 1) ERR_clear_error();
    return rc;
}

int mw_aes256gcm_open(const uint8_t key[32], const uint8_t nonce[12],
                      const uint8_t *aad, size_t aadlen,
                      const uint8_t *ct, size_t ctlen, uint8_t *out) {
    REQUIRE_INIT();
    if (!key || !nonce || !BUFFER_OK(aad, aadlen) || !BUFFER_OK(ct, ctlen) || (!out && ctlen > 16)) return -1;
    if (ctlen < 16) return 0;
    if (ctlen > INT_MAX / 2 || aadlen > INT_MAX / 2) return -1;
    size_t ptlen = ctlen - 16;
    int rc = -1, len = 0, fin = 0, aadout = 0; /* the AAD update reports its own length */
    uint8_t tag[16];
    memcpy(tag, ct + ptlen, 16);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) goto done;
    if (EVP_DecryptInit_ex2(ctx, g_aes256gcm, key, nonce, NULL) != 1) goto done;
    if (aadlen > 0 && EVP_DecryptUpdate(ctx, NULL, &aadout, aad, (int)aadlen) != 1) goto done;
    if (ptlen > 0 && EVP_DecryptUpdate(ctx, out, &len, ct, (int)ptlen) != 1) goto done;
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, tag) != 1) goto done;
    if (EVP_DecryptFinal_ex(ctx, out + len, &fin) != 1) {
        rc = 0; /* authentication failure */
        OPENSSL_cleanse(out, ptlen);
        goto done;
    }
    rc = 1;
done:
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return rc;
}

/* MARK: Utilities */

int mw_random_bytes(uint8_t *out, size_t len) {
    if (len == 0) return 1;
    if (!out || len > INT_MAX) return -1;
    if (RAND_bytes(out, (int)len) != 1) {
        ERR_clear_error();
        return -1;
    }
    return 1;
}

int mw_ct_equal(const uint8_t *a, const uint8_t *b, size_t len) {
    if (len == 0) return 1;
    if (!a || !b) return 0;
    return CRYPTO_memcmp(a, b, len) == 0 ? 1 : 0;
}

void mw_cleanse(void *ptr, size_t len) {
    if (ptr && len) OPENSSL_cleanse(ptr, len);
}

const char *mw_openssl_version(void) { return OpenSSL_version(OPENSSL_VERSION); }

/* AES-256-CBC with PKCS#7 padding; encrypt: out holds len + 16; returns bytes written or -1. */
long mw_aes256cbc(int encrypt, const uint8_t key[32], const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out) {
    REQUIRE_INIT();
    if (!key || !iv || !out || !BUFFER_OK(in, len) || len > INT_MAX / 2) return -1;
    long rc = -1;
    int n = 0, fin = 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) goto done;
    if (EVP_CipherInit_ex2(ctx, g_aes256cbc, key, iv, encrypt ? 1 : 0, NULL) != 1) goto done;
    if (len > 0 && EVP_CipherUpdate(ctx, out, &n, in, (int)len) != 1) goto done;
    if (EVP_CipherFinal_ex(ctx, out + n, &fin) != 1) goto done;
    rc = (long)n + fin;
done:
    EVP_CIPHER_CTX_free(ctx);
    if (rc < 0) ERR_clear_error();
    return rc;
}
