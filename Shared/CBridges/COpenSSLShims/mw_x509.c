/*
 * OpenSSL 3 X.509 bridge for Mailwake. See include/mw_x509.h for the contract.
 * Every OpenSSL object allocated here is freed here.
 */
#include "mw_x509.h"

#include <limits.h>
#include <string.h>
#include <time.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#define STORE(r) ((X509_STORE *)(r))

/* Parses exactly one DER certificate; NULL on any error or trailing bytes. */
static X509 *parse_der(const uint8_t *der, size_t len) {
    if (der == NULL || len == 0 || len > LONG_MAX) return NULL;
    const unsigned char *p = der;
    X509 *cert = d2i_X509(NULL, &p, (long)len);
    if (cert == NULL) {
        ERR_clear_error();
        return NULL;
    }
    if (p != der + len) {
        X509_free(cert);
        return NULL;
    }
    return cert;
}

int mw_x509_der_is_certificate(const uint8_t *der, size_t len) {
    X509 *cert = parse_der(der, len);
    if (cert == NULL) return 0;
    X509_free(cert);
    return 1;
}

mw_x509_roots *mw_x509_roots_new(void) {
    /* No X509_STORE_set_default_paths: the system trust store is never used. */
    return (mw_x509_roots *)X509_STORE_new();
}

int mw_x509_roots_add_der(mw_x509_roots *roots, const uint8_t *der, size_t len) {
    if (roots == NULL) return -1;
    X509 *cert = parse_der(der, len);
    if (cert == NULL) return 0;
    int rc = X509_STORE_add_cert(STORE(roots), cert); /* takes its own reference */
    X509_free(cert);
    if (rc != 1) {
        ERR_clear_error();
        return -1;
    }
    return 1;
}

void mw_x509_roots_free(mw_x509_roots *roots) { X509_STORE_free(STORE(roots)); }

static int classify(int err) {
    switch (err) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
        return MW_X509_FAIL_EXPIRED;
    case X509_V_ERR_CERT_NOT_YET_VALID:
        return MW_X509_FAIL_NOT_YET_VALID;
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
    case X509_V_ERR_CERT_UNTRUSTED:
    case X509_V_ERR_CERT_REJECTED:
        return MW_X509_FAIL_UNTRUSTED;
    default:
        return MW_X509_FAIL_INVALID;
    }
}

int mw_x509_verify_chain(const mw_x509_roots *roots,
                         const uint8_t *leaf, size_t leaf_len,
                         const uint8_t *intermediate, size_t intermediate_len,
                         int64_t at_time, int *fail_kind, int *x509_error) {
    if (roots == NULL || fail_kind == NULL || x509_error == NULL) return -1;
    *fail_kind = MW_X509_FAIL_NONE;
    *x509_error = X509_V_OK;
    if ((int64_t)(time_t)at_time != at_time) return -1;

    int result = -1;
    X509 *leaf_cert = NULL, *inter_cert = NULL;
    STACK_OF(X509) *untrusted = NULL;
    X509_STORE_CTX *ctx = NULL;

    leaf_cert = parse_der(leaf, leaf_len);
    inter_cert = parse_der(intermediate, intermediate_len);
    if (leaf_cert == NULL || inter_cert == NULL) goto done;
    untrusted = sk_X509_new_null();
    if (untrusted == NULL || sk_X509_push(untrusted, inter_cert) <= 0) goto done;
    ctx = X509_STORE_CTX_new();
    if (ctx == NULL) goto done;
    /* The store is only read during verification (OpenSSL locks its lookups). */
    if (X509_STORE_CTX_init(ctx, STORE(roots), leaf_cert, untrusted) != 1) goto done;

    X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
    if (param == NULL) goto done;
    X509_VERIFY_PARAM_set_time(param, (time_t)at_time); /* also sets USE_CHECK_TIME; cannot fail */
    /* A verification without its strict flags is not attempted at all. */
    if (X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_X509_STRICT | X509_V_FLAG_CHECK_SS_SIGNATURE) != 1) goto done;
    if (X509_VERIFY_PARAM_clear_flags(param, X509_V_FLAG_PARTIAL_CHAIN | X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL) != 1) goto done;
    X509_VERIFY_PARAM_set_depth(param, 1); /* one intermediate; leaf and anchor do not count; cannot fail */

    int rc = X509_verify_cert(ctx);
    if (rc == 1) {
        /* The path must be exactly leaf, the given intermediate, a trusted root. */
        STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(ctx);
        if (chain != NULL && sk_X509_num(chain) == 3 &&
            X509_cmp(sk_X509_value(chain, 0), leaf_cert) == 0 &&
            X509_cmp(sk_X509_value(chain, 1), inter_cert) == 0) {
            result = 1;
        } else {
            *fail_kind = MW_X509_FAIL_UNTRUSTED;
            *x509_error = X509_V_ERR_CERT_CHAIN_TOO_LONG;
            result = 0;
        }
    } else if (rc == 0) {
        int err = X509_STORE_CTX_get_error(ctx);
        *x509_error = err;
        *fail_kind = classify(err);
        result = 0;
    }

done:
    X509_STORE_CTX_free(ctx);
    sk_X509_free(untrusted); /* the stack only; inter_cert is freed below */
    X509_free(inter_cert);
    X509_free(leaf_cert);
    ERR_clear_error();
    return result;
}

int mw_x509_has_extension(const uint8_t *der, size_t len, const char *dotted_oid) {
    if (dotted_oid == NULL) return -1;
    X509 *cert = parse_der(der, len);
    if (cert == NULL) return -1;
    ASN1_OBJECT *obj = OBJ_txt2obj(dotted_oid, 1); /* numerical form only */
    int result = -1;
    if (obj != NULL) {
        result = X509_get_ext_by_OBJ(cert, obj, -1) >= 0 ? 1 : 0;
    }
    ASN1_OBJECT_free(obj);
    X509_free(cert);
    ERR_clear_error();
    return result;
}

int mw_x509_p256_public_key(const uint8_t *der, size_t len, uint8_t out[65]) {
    if (out == NULL) return -1;
    X509 *cert = parse_der(der, len);
    if (cert == NULL) return -1;
    int result = 0;
    BIGNUM *x = NULL, *y = NULL;
    char group[64] = {0};
    size_t group_len = 0;
    EVP_PKEY *pkey = X509_get0_pubkey(cert); /* owned by cert */
    if (pkey == NULL) {
        result = -1;
        goto done;
    }
    if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_EC) goto done;
    if (EVP_PKEY_get_group_name(pkey, group, sizeof group, &group_len) != 1) goto done;
    if (strcmp(group, SN_X9_62_prime256v1) != 0) goto done;
    if (EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_X, &x) != 1) goto done;
    if (EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &y) != 1) goto done;
    out[0] = 0x04;
    if (BN_bn2binpad(x, out + 1, 32) != 32 || BN_bn2binpad(y, out + 33, 32) != 32) {
        result = -1;
        goto done;
    }
    result = 1;
done:
    BN_free(x);
    BN_free(y);
    X509_free(cert);
    ERR_clear_error();
    return result;
}

const char *mw_x509_error_string(int x509_error) {
    return X509_verify_cert_error_string(x509_error);
}

/* ---- the outpost's own HTTPS certificate ---- */

#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/rand.h>
#include <string.h>
#include <stdlib.h>

static char *mw_bio_string(BIO *bio) {
    char *data = NULL;
    long n = BIO_get_mem_data(bio, &data);
    if (n <= 0) return NULL;
    char *copy = malloc((size_t)n + 1);
    if (copy == NULL) return NULL;
    memcpy(copy, data, (size_t)n);
    copy[n] = '\0';
    return copy;
}

int mw_x509_self_signed(const char *common_name, const char *const *sans, size_t san_count, int days, char **cert_pem, char **key_pem) {
    *cert_pem = NULL;
    *key_pem = NULL;
    int rc = -1;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = X509_new();
    BIO *cert_bio = BIO_new(BIO_s_mem());
    BIO *key_bio = BIO_new(BIO_s_mem());
    char *alt = NULL;
    if (key == NULL || cert == NULL || cert_bio == NULL || key_bio == NULL) goto done;

    if (X509_set_version(cert, 2) != 1) goto done;
    uint8_t serial[16];
    if (RAND_bytes(serial, sizeof serial) != 1) goto done;
    serial[0] &= 0x7F;
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, NULL);
    if (bn == NULL) goto done;
    ASN1_INTEGER *asn1_serial = BN_to_ASN1_INTEGER(bn, NULL);
    BN_free(bn);
    if (asn1_serial == NULL) goto done;
    int serial_set = X509_set_serialNumber(cert, asn1_serial);
    ASN1_INTEGER_free(asn1_serial);
    if (serial_set != 1) goto done;
    /* A validity OpenSSL cannot represent (beyond the year 9999) fails here. */
    if (days <= 0) goto done;
    if (X509_gmtime_adj(X509_getm_notBefore(cert), -3600) == NULL) goto done;
    if (X509_gmtime_adj(X509_getm_notAfter(cert), (long)days * 86400L) == NULL) goto done;
    if (X509_set_pubkey(cert, key) != 1) goto done;
    X509_NAME *name = X509_get_subject_name(cert);
    if (name == NULL) goto done;
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) != 1) goto done;
    if (X509_set_issuer_name(cert, name) != 1) goto done;

    /* subjectAltName: "DNS:a,IP:1.2.3.4" */
    size_t cap = 1;
    for (size_t i = 0; i < san_count; i++) cap += strlen(sans[i]) + 5;
    alt = calloc(cap, 1);
    if (alt == NULL) goto done;
    for (size_t i = 0; i < san_count; i++) {
        ASN1_OCTET_STRING *ip = a2i_IPADDRESS(sans[i]);
        int is_ip = ip != NULL;
        ASN1_OCTET_STRING_free(ip);
        if (i > 0) strcat(alt, ",");
        strcat(alt, is_ip ? "IP:" : "DNS:");
        strcat(alt, sans[i]);
    }
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
    const char *names[] = { "subjectAltName", "basicConstraints", "keyUsage", "extendedKeyUsage" };
    const char *values[] = { alt, "critical,CA:FALSE", "critical,digitalSignature", "serverAuth" };
    for (int i = 0; i < 4; i++) {
        if (i == 0 && san_count == 0) continue;
        X509_EXTENSION *ext = X509V3_EXT_conf(NULL, &ctx, names[i], values[i]);
        if (ext == NULL) goto done;
        int added = X509_add_ext(cert, ext, -1);
        X509_EXTENSION_free(ext);
        if (added != 1) goto done;
    }
    if (X509_sign(cert, key, EVP_sha256()) <= 0) goto done;
    if (PEM_write_bio_X509(cert_bio, cert) != 1) goto done;
    if (PEM_write_bio_PrivateKey(key_bio, key, NULL, NULL, 0, NULL, NULL) != 1) goto done;
    *cert_pem = mw_bio_string(cert_bio);
    *key_pem = mw_bio_string(key_bio);
    if (*cert_pem == NULL || *key_pem == NULL) {
        free(*cert_pem);
        free(*key_pem);
        *cert_pem = NULL;
        *key_pem = NULL;
        goto done;
    }
    rc = 0;
done:
    free(alt);
    BIO_free(cert_bio);
    BIO_free(key_bio);
    X509_free(cert);
    EVP_PKEY_free(key);
    return rc;
}

void mw_x509_free_pem(char *pem) {
    if (pem != NULL) OPENSSL_cleanse(pem, strlen(pem));
    free(pem);
}

static X509 *mw_first_pem_certificate(const char *pem, size_t len) {
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (bio == NULL) return NULL;
    X509 *cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
    return cert;
}

int mw_x509_pem_spki_sha256(const char *pem, size_t len, uint8_t out[32]) {
    X509 *cert = mw_first_pem_certificate(pem, len);
    if (cert == NULL) return -1;
    unsigned char *der = NULL;
    int n = i2d_PUBKEY(X509_get0_pubkey(cert), &der);
    X509_free(cert);
    if (n <= 0) return -1;
    int rc = SHA256(der, (size_t)n, out) != NULL ? 0 : -1;
    OPENSSL_free(der);
    return rc;
}

long long mw_x509_pem_not_after(const char *pem, size_t len) {
    X509 *cert = mw_first_pem_certificate(pem, len);
    if (cert == NULL) return -1;
    struct tm tm;
    long long result = -1;
    if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) == 1) result = (long long)timegm(&tm);
    X509_free(cert);
    return result;
}
