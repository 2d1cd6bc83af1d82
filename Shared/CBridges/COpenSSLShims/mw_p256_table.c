/*
 * ECDSA P-256 verification with a precomputed table for the public key.
 *
 * A verify computes u1*G + u2*Q. OpenSSL multiplies by the generator G with a
 * static table of its multiples and by any other point Q with a window it
 * builds on every call, which is about two thirds of a verify. Here Q gets a
 * table of its own: a copy of the P-256 group whose generator is Q, with
 * OpenSSL's precomputation for that generator (the same 37 x 64 table layout
 * as G's). u2*Q then costs what u1*G does.
 *
 * EC_GROUP_set_generator and EC_GROUP_precompute_mult are deprecated in
 * OpenSSL 3.0 (no provider API precomputes for a point other than G) but
 * exported by every 3.x; they are used in this file only.
 *
 * Everything here works on public data (the key, the digest, the signature),
 * so variable-time arithmetic is fine, as it is in OpenSSL's own verify.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "mw_crypto.h"

#include <stdlib.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>

struct mw_p256_table {
    /* P-256 as named: u1*G uses OpenSSL's static table. */
    EC_GROUP *curve;
    /* P-256 with Q as its generator and Q's table precomputed. */
    EC_GROUP *keyed;
    const BIGNUM *order;
};

void mw_p256_table_free(mw_p256_table *table) {
    if (!table) return;
    EC_GROUP_free(table->curve);
    EC_GROUP_free(table->keyed);
    free(table);
}

mw_p256_table *mw_p256_table_new(const uint8_t *point, size_t len) {
    if (!point || len != 65 || point[0] != 0x04) return NULL;
    mw_p256_table *table = calloc(1, sizeof *table);
    EC_POINT *q = NULL;
    BN_CTX *ctx = BN_CTX_new();
    int ok = 0;
    if (!table || !ctx) goto done;
    table->curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    if (!table->curve) goto done;
    table->order = EC_GROUP_get0_order(table->curve);
    q = EC_POINT_new(table->curve);
    /* oct2point checks that the point is on the curve; P-256's cofactor is 1,
     * so every point on it other than infinity has order n. */
    if (!q || EC_POINT_oct2point(table->curve, q, point, len, ctx) != 1) goto done;
    if (EC_POINT_is_at_infinity(table->curve, q)) goto done;
    table->keyed = EC_GROUP_dup(table->curve);
    if (!table->keyed) goto done;
    if (EC_GROUP_set_generator(table->keyed, q, table->order, BN_value_one()) != 1) goto done;
    if (EC_GROUP_precompute_mult(table->keyed, ctx) != 1) goto done;
    if (EC_GROUP_have_precompute_mult(table->keyed) != 1) goto done;
    ok = 1;
done:
    EC_POINT_free(q);
    BN_CTX_free(ctx);
    ERR_clear_error();
    if (!ok) {
        mw_p256_table_free(table);
        return NULL;
    }
    return table;
}

/* SEC 1 v2 section 4.1.4, with SHA-256 and a 256-bit order: no truncation. */
int mw_p256_table_verify_digest(const mw_p256_table *table, const uint8_t digest[32], const uint8_t *sig, size_t siglen) {
    if (!table || !digest || !sig || siglen != 64) return 0;
    BN_CTX *ctx = BN_CTX_new();
    if (!ctx) return -1;
    EC_POINT *sum = EC_POINT_new(table->curve);
    EC_POINT *byKey = EC_POINT_new(table->keyed);
    int rc = -1;
    BN_CTX_start(ctx);
    BIGNUM *r = BN_CTX_get(ctx), *s = BN_CTX_get(ctx), *e = BN_CTX_get(ctx);
    BIGNUM *w = BN_CTX_get(ctx), *u1 = BN_CTX_get(ctx), *u2 = BN_CTX_get(ctx), *x = BN_CTX_get(ctx);
    if (!sum || !byKey || !x) goto done;
    if (!BN_bin2bn(sig, 32, r) || !BN_bin2bn(sig + 32, 32, s) || !BN_bin2bn(digest, 32, e)) goto done;
    /* r and s in [1, n-1]. */
    if (BN_is_zero(r) || BN_is_zero(s) || BN_cmp(r, table->order) >= 0 || BN_cmp(s, table->order) >= 0) {
        rc = 0;
        goto done;
    }
    /* w = s^-1, u1 = e*w, u2 = r*w (mod n); e may exceed n, BN_mod_mul reduces. */
    if (!BN_mod_inverse(w, s, table->order, ctx)) goto done;
    if (BN_mod_mul(u1, e, w, table->order, ctx) != 1 || BN_mod_mul(u2, r, w, table->order, ctx) != 1) goto done;
    /* (x, y) = u1*G + u2*Q, each from its table. */
    if (EC_POINT_mul(table->curve, sum, u1, NULL, NULL, ctx) != 1) goto done;
    if (EC_POINT_mul(table->keyed, byKey, u2, NULL, NULL, ctx) != 1) goto done;
    if (EC_POINT_add(table->curve, sum, sum, byKey, ctx) != 1) goto done;
    if (EC_POINT_is_at_infinity(table->curve, sum)) {
        rc = 0;
        goto done;
    }
    if (EC_POINT_get_affine_coordinates(table->curve, sum, x, NULL, ctx) != 1) goto done;
    /* Valid when x mod n == r. */
    if (BN_nnmod(x, x, table->order, ctx) != 1) goto done;
    rc = BN_cmp(x, r) == 0 ? 1 : 0;
done:
    BN_CTX_end(ctx);
    BN_CTX_free(ctx);
    EC_POINT_free(sum);
    EC_POINT_free(byKey);
    ERR_clear_error();
    return rc;
}

int mw_p256_table_verify(const mw_p256_table *table, const uint8_t *msg, size_t len, const uint8_t *sig, size_t siglen) {
    uint8_t digest[32];
    if (mw_sha256(msg, len, digest) != 1) return -1;
    return mw_p256_table_verify_digest(table, digest, sig, siglen);
}
