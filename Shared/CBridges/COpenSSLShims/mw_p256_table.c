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
#include <string.h>

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

/* MARK: s^-1 mod n
 *
 * BN_mod_inverse spends about 12 us on a 256-bit inverse, a third of a verify
 * with the table; OpenSSL's own verify uses a fast inverse that it does not
 * export. This is the binary extended Euclidean algorithm on four 64-bit limbs
 * (variable time: s is public), for an odd n and 0 < s < n with gcd(s, n) = 1
 * (n is prime). Invariants: x1*s = u and x2*s = v (mod n), x1 and x2 in [0, n). */

typedef unsigned __int128 mw_u128;

/* The P-256 group order n (SEC 2: FFFFFFFF 00000000 FFFFFFFF FFFFFFFF BCE6FAAD A7179E84 F3B9CAC2 FC632551) as
 * four little-endian 64-bit limbs; mw_p256_order_inverse_check compares against OpenSSL's own order. */
static const uint64_t P256_ORDER[4] = {0xF3B9CAC2FC632551ULL, 0xBCE6FAADA7179E84ULL, 0xFFFFFFFFFFFFFFFFULL, 0xFFFFFFFF00000000ULL};

static void limbs_from_be(uint64_t out[4], const uint8_t in[32]) {
    for (int i = 0; i < 4; i++) {
        uint64_t w = 0;
        for (int j = 0; j < 8; j++) w = (w << 8) | in[(3 - i) * 8 + j];
        out[i] = w;
    }
}

static void limbs_to_be(uint8_t out[32], const uint64_t in[4]) {
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 8; j++) out[(3 - i) * 8 + j] = (uint8_t)(in[i] >> (56 - 8 * j));
    }
}

static int limbs_is_one(const uint64_t a[4]) { return a[0] == 1 && (a[1] | a[2] | a[3]) == 0; }

static int limbs_ge(const uint64_t a[4], const uint64_t b[4]) {
    for (int i = 3; i >= 0; i--) {
        if (a[i] != b[i]) return a[i] > b[i];
    }
    return 1;
}

/* r = a - b; the borrow out. */
static uint64_t limbs_sub(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        mw_u128 d = (mw_u128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

/* r = a + b; the carry out. */
static uint64_t limbs_add(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        mw_u128 t = (mw_u128)a[i] + b[i] + carry;
        r[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
    return carry;
}

/* a = (a >> 1) with top as the new most significant bit. */
static void limbs_shr1(uint64_t a[4], uint64_t top) {
    for (int i = 0; i < 3; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
    a[3] = (a[3] >> 1) | (top << 63);
}

/* a = a >> k, for 0 < k < 64. */
static void limbs_shr(uint64_t a[4], int k) {
    for (int i = 0; i < 3; i++) a[i] = (a[i] >> k) | (a[i + 1] << (64 - k));
    a[3] >>= k;
}

/* x = x / 2^k (mod n), for x in [0, n): adds n when x is odd (without a
 * branch: which it is follows no pattern) and halves, k times. */
static void halve_mod(uint64_t x[4], const uint64_t n[4], int k) {
    for (int i = 0; i < k; i++) {
        uint64_t mask = 0 - (x[0] & 1);
        const uint64_t masked[4] = {n[0] & mask, n[1] & mask, n[2] & mask, n[3] & mask};
        uint64_t carry = limbs_add(x, x, masked);
        limbs_shr1(x, carry);
    }
}

/* Removes the factors of two from a (not zero), dividing x by as many (mod n). */
static void strip_twos(uint64_t a[4], uint64_t x[4], const uint64_t n[4]) {
    while (a[0] == 0) {
        memmove(a, a + 1, 3 * sizeof a[0]);
        a[3] = 0;
        halve_mod(x, n, 64);
    }
    int k = __builtin_ctzll(a[0]);
    if (k > 0) {
        limbs_shr(a, k);
        halve_mod(x, n, k);
    }
}

/* x = x - y (mod n), for x, y in [0, n). */
static void sub_mod(uint64_t x[4], const uint64_t y[4], const uint64_t n[4]) {
    if (limbs_sub(x, x, y)) limbs_add(x, x, n);
}

/* out = s^-1 mod n; 0 when s is 0 or not below n. */
static int inverse_mod(uint64_t out[4], const uint64_t s[4], const uint64_t n[4]) {
    if ((s[0] | s[1] | s[2] | s[3]) == 0 || limbs_ge(s, n)) return 0;
    uint64_t u[4], v[4], x1[4] = {1, 0, 0, 0}, x2[4] = {0, 0, 0, 0};
    memcpy(u, s, sizeof u);
    memcpy(v, n, sizeof v);
    while (!limbs_is_one(u) && !limbs_is_one(v)) {
        strip_twos(u, x1, n);
        strip_twos(v, x2, n);
        if (limbs_ge(u, v)) {
            limbs_sub(u, u, v);
            sub_mod(x1, x2, n);
        } else {
            limbs_sub(v, v, u);
            sub_mod(x2, x1, n);
        }
    }
    memcpy(out, limbs_is_one(u) ? x1 : x2, sizeof x1);
    return 1;
}

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
    uint64_t sLimbs[4], wLimbs[4];
    uint8_t wBytes[32];
    limbs_from_be(sLimbs, sig + 32);
    if (!inverse_mod(wLimbs, sLimbs, P256_ORDER)) goto done;
    limbs_to_be(wBytes, wLimbs);
    if (!BN_bin2bn(wBytes, 32, w)) goto done;
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

int mw_p256_order_inverse_check(uint64_t seed, int rounds) {
    BN_CTX *ctx = BN_CTX_new();
    EC_GROUP *curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *s = BN_new(), *expected = BN_new();
    int mismatches = -1;
    if (!ctx || !curve || !s || !expected) goto done;
    const BIGNUM *order = EC_GROUP_get0_order(curve);
    uint8_t nBytes[32], opensslN[32], in[32], want[32], got[32];
    uint64_t sLimbs[4], w[4];
    limbs_to_be(nBytes, P256_ORDER);
    if (BN_bn2binpad(order, opensslN, 32) != 32) goto done;
    /* A wrong constant would make every inverse differ: count them all. */
    if (memcmp(nBytes, opensslN, 32) != 0) {
        mismatches = rounds;
        goto done;
    }
    mismatches = 0;
    uint64_t x = seed | 1;
    for (int round = 0; round < rounds; round++) {
        /* Edge values first: 1, 2, 3, n-1, n-2, n-0x50, then 2^64, 2^128, 2^192 and 2^255 (whole zero limbs
         * for strip_twos to skip); then xorshift64* bytes, reduced below n. */
        for (int i = 0; i < 32; i++) {
            x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
            in[i] = (uint8_t)((x * 0x2545F4914F6CDD1DULL) >> 56);
        }
        if (round < 3) {
            memset(in, 0, sizeof in);
            in[31] = (uint8_t)(round + 1);
        } else if (round < 6) {
            static const uint8_t below[3] = {1, 2, 0x50};
            memcpy(in, nBytes, 32);
            in[31] -= below[round - 3];
        } else if (round < 10) {
            static const int powers[4] = {64, 128, 192, 255};
            int bit = powers[round - 6];
            memset(in, 0, sizeof in);
            in[31 - bit / 8] = (uint8_t)(1u << (bit % 8));
        }
        if (!BN_bin2bn(in, 32, s) || BN_nnmod(s, s, order, ctx) != 1) { mismatches = -1; goto done; }
        if (BN_is_zero(s)) continue;
        if (BN_bn2binpad(s, in, 32) != 32 || !BN_mod_inverse(expected, s, order, ctx)
            || BN_bn2binpad(expected, want, 32) != 32) { mismatches = -1; goto done; }
        limbs_from_be(sLimbs, in);
        if (!inverse_mod(w, sLimbs, P256_ORDER)) { mismatches++; continue; }
        limbs_to_be(got, w);
        if (memcmp(got, want, 32) != 0) mismatches++;
    }
done:
    BN_free(s);
    BN_free(expected);
    EC_GROUP_free(curve);
    BN_CTX_free(ctx);
    ERR_clear_error();
    return mismatches;
}
