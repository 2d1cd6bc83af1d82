#ifndef MAILWAKE_MW_CRYPTO_H
#define MAILWAKE_MW_CRYPTO_H
/*
 * Plain-signature bridge over OpenSSL 3 libcrypto for Mailwake.
 *
 * Rules of this boundary:
 *  - Every function returns 1 on success, 0 on a clean negative result
 *    (signature or tag mismatch, invalid point) and -1 on an internal error,
 *    unless documented otherwise.
 *  - OSSL_PARAM arrays, macros and variadic calls live only in the .c file.
 *  - Key handles (mw_key) are opaque EVP_PKEY pointers; the caller frees each
 *    exactly once with mw_key_free. A handle is immutable after creation and
 *    may be used from several threads at once.
 *  - Fetched algorithms (SHA-256, AES-256-GCM, HKDF, HMAC) are fetched once per
 *    process and reused: OpenSSL 3 fetches are costly on hot paths.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mw_key mw_key;

enum {
    MW_P256_SCALAR_BYTES = 32,
    MW_P256_POINT_BYTES = 65,
    MW_P256_SIGNATURE_BYTES = 64,
    MW_SHA256_BYTES = 32,
    MW_AES256_KEY_BYTES = 32,
    MW_GCM_NONCE_BYTES = 12,
    MW_GCM_TAG_BYTES = 16,
};

/* Library initialisation (idempotent, thread safe). Returns 1 or -1. */
int mw_crypto_init(void);

/* MARK: Keys */
mw_key *mw_p256_generate(void);
/* Imports a raw 32-byte scalar; rejects 0 and values >= n. NULL on failure. */
mw_key *mw_p256_private_from_raw(const uint8_t *scalar, size_t len);
/* Imports an X9.63 uncompressed point, checking it lies on P-256. */
mw_key *mw_p256_public_from_x963(const uint8_t *point, size_t len);
/* Imports an unencrypted PKCS#8 DER PrivateKeyInfo holding a P-256 key. */
mw_key *mw_p256_private_from_pkcs8(const uint8_t *der, size_t len);
void mw_key_free(mw_key *key);
/* 1 when the handle holds a private key. */
int mw_key_has_private(const mw_key *key);

int mw_p256_export_raw_private(const mw_key *key, uint8_t out[32]);
int mw_p256_export_x963(const mw_key *key, uint8_t out[65]);
/* Writes PKCS#8 DER into out (capacity cap); *written receives the length. */
int mw_p256_export_pkcs8(const mw_key *key, uint8_t *out, size_t cap, size_t *written);

/* MARK: ECDSA P-256 / SHA-256, raw r||s signatures */
int mw_ecdsa_sign(const mw_key *key, const uint8_t *msg, size_t len, uint8_t sig[64]);
/* Signs an already computed SHA-256 digest. */
int mw_ecdsa_sign_digest(const mw_key *key, const uint8_t digest[32], uint8_t sig[64]);
int mw_ecdsa_verify(const mw_key *key, const uint8_t *msg, size_t len, const uint8_t *sig, size_t siglen);
int mw_ecdsa_verify_digest(const mw_key *key, const uint8_t digest[32], const uint8_t *sig, size_t siglen);
/* A P-256 public key with a precomputed multiples table (264 KiB) for
 * verifying many signatures under it: a verify then costs under a third of
 * mw_ecdsa_verify, and reads 55 of the table's (and G's table's) 64-byte
 * entries, not the whole table. Building one takes about 2.2 ms of CPU
 * (the first also builds G's, once per process); NULL when the point is not
 * on the curve. A built table is only read, so threads may verify with one
 * concurrently; free it when none does. */
typedef struct mw_p256_table mw_p256_table;
mw_p256_table *mw_p256_table_new(const uint8_t *point, size_t len);
/* 1 valid, 0 invalid (including a malformed signature), -1 internal error. */
int mw_p256_table_verify_digest(const mw_p256_table *table, const uint8_t digest[32], const uint8_t *sig, size_t siglen);
/* Verifies a signature of SHA-256(msg). */
int mw_p256_table_verify(const mw_p256_table *table, const uint8_t *msg, size_t len, const uint8_t *sig, size_t siglen);
void mw_p256_table_free(mw_p256_table *table);
/* For tests: compares the table's inverse modulo the P-256 order with
 * BN_mod_inverse on `rounds` values (edge values, then pseudo-random from
 * seed); the number that differ, or -1 on an internal error. */
int mw_p256_order_inverse_check(uint64_t seed, int rounds);
/* For tests: compares the table's Montgomery products modulo the P-256 order and field prime (a b 2^-256 mod m)
 * with BN_mod_mul on `rounds` values (edge values, then pseudo-random from seed); the number that differ, or -1 on
 * an internal error. */
int mw_p256_montgomery_check(uint64_t seed, int rounds);
/* For tests: compares the tables' a G + b Q with OpenSSL's EC_POINT_mul for keys G, -G, 2G and three random ones, on
 * `rounds` pairs (edge scalars, a = b, then pseudo-random from seed), and the field product modulo p with the
 * generic one; the number that differ, or -1 on an internal error. */
int mw_p256_multiplication_check(uint64_t seed, int rounds);
/* For tests: builds signatures for chosen u1 and u2 on `rounds` rounds (pseudo-random from seed) that take every
 * range check and both branches of the final comparison (valid; negated s; r + n; a small s, and s + n; a flipped bit of the
 * digest, r and s; a sum at infinity; R with x in [n, p), whose r = x - n is valid and r = x is not; R with a small
 * x, whose r = x + p - n and r = x + 2^256 - n are not), and compares the table's answers and the key alone's with
 * the expected ones; the number that differ, or -1 on an internal error. */
int mw_p256_verify_check(uint64_t seed, int rounds);
/* DER <-> raw conversion (for X.509 / JWS interop). */
int mw_ecdsa_der_to_raw(const uint8_t *der, size_t len, uint8_t raw[64]);
int mw_ecdsa_raw_to_der(const uint8_t raw[64], uint8_t *out, size_t cap, size_t *written);

/* MARK: ECDH: writes the 32-byte X coordinate */
int mw_ecdh(const mw_key *priv, const mw_key *peer, uint8_t out[32]);

/* MARK: Hashes, MAC, KDF */
int mw_sha256(const uint8_t *data, size_t len, uint8_t out[32]);
int mw_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *data, size_t len, uint8_t out[32]);
int mw_hkdf_sha256(const uint8_t *ikm, size_t ikmlen, const uint8_t *salt, size_t saltlen,
                   const uint8_t *info, size_t infolen, uint8_t *out, size_t outlen);

/* Incremental SHA-256 (opaque context). */
typedef struct mw_sha256_ctx mw_sha256_ctx;
mw_sha256_ctx *mw_sha256_new(void);
int mw_sha256_update(mw_sha256_ctx *ctx, const uint8_t *data, size_t len);
int mw_sha256_final(mw_sha256_ctx *ctx, uint8_t out[32]);
void mw_sha256_free(mw_sha256_ctx *ctx);

/* MARK: AES-256-GCM, 12-byte nonce, 16-byte tag appended to the ciphertext */
/* out must hold ptlen + 16 bytes. */
int mw_aes256gcm_seal(const uint8_t key[32], const uint8_t nonce[12],
                      const uint8_t *aad, size_t aadlen,
                      const uint8_t *pt, size_t ptlen, uint8_t *out);
/* ct includes the tag; out must hold ctlen - 16 bytes. 0 on tag mismatch. */
int mw_aes256gcm_open(const uint8_t key[32], const uint8_t nonce[12],
                      const uint8_t *aad, size_t aadlen,
                      const uint8_t *ct, size_t ctlen, uint8_t *out);

/* MARK: AES-256-CBC with PKCS#7 padding (for peers that require it, e.g. Bark) */
/* encrypt 1 or 0 (decrypt); out holds len + 16 bytes; returns bytes written, or -1 (bad padding on decrypt). */
long mw_aes256cbc(int encrypt, const uint8_t key[32], const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out);

/* MARK: scrypt (RFC 7914) for passphrases */
/* N = 2^log2_n; the caller bounds the parameters (memory is about 128 * r * N bytes). 1 ok, -1 failure. */
int mw_scrypt(const uint8_t *pass, size_t passlen, const uint8_t *salt, size_t saltlen,
              unsigned log2_n, uint32_t r, uint32_t p, uint8_t *out, size_t outlen);

/* MARK: Utilities */
int mw_random_bytes(uint8_t *out, size_t len);
/* Constant-time equality of two equal-length buffers: 1 equal, 0 different. */
int mw_ct_equal(const uint8_t *a, const uint8_t *b, size_t len);
void mw_cleanse(void *ptr, size_t len);
/* The OpenSSL version string, e.g. "OpenSSL 3.0.19 27 Jan 2026". */
const char *mw_openssl_version(void);
/* Clears OpenSSL's thread error queue (call after an expected failure). */
void mw_clear_errors(void);

#ifdef __cplusplus
}
#endif
#endif
