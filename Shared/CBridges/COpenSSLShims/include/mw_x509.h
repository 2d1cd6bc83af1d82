#ifndef MAILWAKE_MW_X509_H
#define MAILWAKE_MW_X509_H
/*
 * Plain-signature bridge over OpenSSL 3 X.509 for Mailwake (App Store
 * signed-data verification). Same rules as mw_crypto.h:
 *  - Functions return 1 on success, 0 on a clean negative result and -1 on
 *    malformed input or an internal error, unless documented otherwise.
 *  - Every OpenSSL object is created and freed in the .c file; no pointer
 *    passed in (including strings) is kept after a call returns.
 *  - DER input is parsed strictly: one complete certificate, no trailing bytes.
 *  - Verification is offline: no CRL, no OCSP, no network, no system trust
 *    store; only the roots added to an mw_x509_roots are trusted.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A set of trusted root certificates (an X509_STORE without default paths).
 * Immutable once built; may then be used from several threads at once. */
typedef struct mw_x509_roots mw_x509_roots;

/* Why a chain did not verify (out parameter of mw_x509_verify_chain). */
enum {
    MW_X509_FAIL_NONE = 0,
    /* No path to a trusted root, bad signature in the chain, unexpected path. */
    MW_X509_FAIL_UNTRUSTED = 1,
    /* A certificate of the chain had expired at the verification time. */
    MW_X509_FAIL_EXPIRED = 2,
    /* A certificate of the chain was not yet valid at the verification time. */
    MW_X509_FAIL_NOT_YET_VALID = 3,
    /* The chain is malformed or violates RFC 5280 rules (X509_V_FLAG_X509_STRICT). */
    MW_X509_FAIL_INVALID = 4,
};

enum { MW_X509_P256_POINT_BYTES = 65 };

/* 1 when der holds exactly one DER X.509 certificate, 0 otherwise. */
int mw_x509_der_is_certificate(const uint8_t *der, size_t len);

/* An empty root set, or NULL when out of memory. */
mw_x509_roots *mw_x509_roots_new(void);
/* Adds one DER root: 1 added, 0 not a certificate, -1 internal error. */
int mw_x509_roots_add_der(mw_x509_roots *roots, const uint8_t *der, size_t len);
void mw_x509_roots_free(mw_x509_roots *roots);

/*
 * Verifies leaf <- intermediate <- one trusted root, as of at_time (seconds
 * since the Unix epoch). The intermediate is untrusted input; the path must be
 * exactly leaf, that intermediate, a root of the set. Flags: X.509 strict,
 * self-signature of the root checked, no CRL/OCSP.
 *
 * Returns 1 verified, 0 refused (*fail_kind gets an MW_X509_FAIL_* value and
 * *x509_error the X509_V_ERR_* code), -1 malformed DER or internal error.
 */
int mw_x509_verify_chain(const mw_x509_roots *roots,
                         const uint8_t *leaf, size_t leaf_len,
                         const uint8_t *intermediate, size_t intermediate_len,
                         int64_t at_time, int *fail_kind, int *x509_error);

/* Whether the certificate carries an extension with the dotted OID (any
 * criticality): 1 yes, 0 no, -1 malformed certificate or OID. */
int mw_x509_has_extension(const uint8_t *der, size_t len, const char *dotted_oid);

/* Writes the certificate's public key as an X9.63 uncompressed P-256 point
 * (04||X||Y): 1 done, 0 the key is not a P-256 EC key, -1 malformed input. */
int mw_x509_p256_public_key(const uint8_t *der, size_t len, uint8_t out[65]);

/* The X509_V_ERR_* text for a code, e.g. "certificate has expired" (static). */
const char *mw_x509_error_string(int x509_error);

#ifdef __cplusplus
}
#endif
/// Creates a self-signed P-256 server certificate: `common_name` as subject,
/// `sans` (DNS names or IP literals) as subjectAltName, valid from an hour ago
/// for `days`. Writes malloc'd PEM strings (the key as PKCS#8); 0 on success.
int mw_x509_self_signed(const char *common_name, const char *const *sans, size_t san_count, int days, char **cert_pem, char **key_pem);

/// Frees a PEM string from `mw_x509_self_signed`.
void mw_x509_free_pem(char *pem);

/// SHA-256 of the DER SubjectPublicKeyInfo of the first certificate in a PEM
/// buffer (the pin of PROTOCOL.md §10); 0 on success.
int mw_x509_pem_spki_sha256(const char *pem, size_t len, uint8_t out[32]);

/// Unix seconds of the first PEM certificate's notAfter, or -1.
long long mw_x509_pem_not_after(const char *pem, size_t len);

#endif
