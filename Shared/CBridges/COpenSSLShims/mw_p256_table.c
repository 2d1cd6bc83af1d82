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
 * export. This is Bernstein and Yang's divstep algorithm ("Fast constant-time
 * gcd computation and modular inversion", 2019) in its variable-time form (s
 * is public), on 64-bit limbs: from (f, g) = (n, s), each batch runs 62
 * divsteps on the low words alone (a divstep's choice depends only on g's
 * parity and on delta, and 62 steps read only the low 62 bits), which gives a
 * matrix M with 2^62 (f', g') = M (f, g); M is then applied to the whole f and
 * g, and to d and e, kept with f = d s and g = e s (mod n). When g reaches 0,
 * f is gcd(n, s) = +-1, and s^-1 is +-d. Divsteps from delta = 1 end within
 * 741 steps for 256-bit inputs (the paper's bound), 12 batches; about 1.7 us
 * here against 7.1 us for the binary extended Euclidean algorithm it replaced.
 *
 * Signed 128-bit right shifts below are arithmetic (GCC and Clang define them so). */

typedef unsigned __int128 mw_u128;
typedef __int128 mw_i128;

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

static int limbs_ge(const uint64_t a[4], const uint64_t b[4]) {
    for (int i = 3; i >= 0; i--) {
        if (a[i] != b[i]) return a[i] > b[i];
    }
    return 1;
}

/* Whether five limbs are low, rest, rest, rest, rest. */
static int limbs5_are(const uint64_t a[5], uint64_t low, uint64_t rest) {
    return a[0] == low && a[1] == rest && a[2] == rest && a[3] == rest && a[4] == rest;
}

/* 2^62 (f', g') = (u f + v g, q f + r g) after 62 divsteps; |u| + |v| and |q| + |r| are at most 2^62. */
struct divsteps {
    int64_t u, v, q, r;
};

/* 62 divsteps on the low words of f (odd) and g, delta carried from batch to batch. */
static struct divsteps divsteps62(int64_t *delta, uint64_t fw, uint64_t gw) {
    int64_t u = 1, v = 0, q = 0, r = 1, d = *delta;
    int left = 62;
    for (;;) {
        /* g even: g/2 as many times as it has trailing zeros, at most the steps left. */
        int zeros = __builtin_ctzll(gw | (1ULL << left));
        gw >>= zeros;
        u = (int64_t)((uint64_t)u << zeros);
        v = (int64_t)((uint64_t)v << zeros);
        d += zeros;
        left -= zeros;
        if (left == 0) break;
        if (d > 0) { /* (f, g) = (g, (g - f)/2), delta = 1 - delta */
            uint64_t f = fw;
            fw = gw;
            gw = (gw - f) >> 1;
            int64_t u0 = u, v0 = v;
            u = 2 * q;
            v = 2 * r;
            q -= u0;
            r -= v0;
            d = 1 - d;
        } else { /* g = (g + f)/2, delta = 1 + delta */
            gw = (gw + fw) >> 1;
            q += u;
            r += v;
            u *= 2;
            v *= 2;
            d += 1;
        }
        left -= 1;
    }
    *delta = d;
    return (struct divsteps){u, v, q, r};
}

/* r = a + b on five limbs (mod 2^320). */
static void limbs5_add(uint64_t r[5], const uint64_t a[5], const uint64_t b[5]) {
    mw_u128 carry = 0;
    for (int i = 0; i < 5; i++) {
        carry += (mw_u128)a[i] + b[i];
        r[i] = (uint64_t)carry;
        carry >>= 64;
    }
}

/* r = a - b on five limbs; the borrow out. */
static uint64_t limbs5_sub(uint64_t r[5], const uint64_t a[5], const uint64_t b[5]) {
    uint64_t borrow = 0;
    for (int i = 0; i < 5; i++) {
        mw_u128 diff = (mw_u128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)diff;
        borrow = (uint64_t)(diff >> 64) & 1;
    }
    return borrow;
}

/* t = a x + b y, six limbs of two's complement, for five-limb two's-complement x and y; |a| + |b| <= 2^62. */
static void combine(uint64_t t[6], int64_t a, const uint64_t x[5], int64_t b, const uint64_t y[5]) {
    mw_i128 acc = 0;
    for (int i = 0; i < 5; i++) {
        mw_i128 xi = i == 4 ? (mw_i128)(int64_t)x[i] : (mw_i128)x[i];
        mw_i128 yi = i == 4 ? (mw_i128)(int64_t)y[i] : (mw_i128)y[i];
        acc += (mw_i128)a * xi + (mw_i128)b * yi;
        t[i] = (uint64_t)acc;
        acc >>= 64;
    }
    t[5] = (uint64_t)acc;
}

/* out = t / 2^62, five limbs, for a six-limb t whose low 62 bits are zero and whose quotient fits. */
static void shift62(uint64_t out[5], const uint64_t t[6]) {
    for (int i = 0; i < 5; i++) out[i] = (t[i] >> 62) | (t[i + 1] << 2);
}

/* out = (a x + b y) / 2^62 mod n, for x and y in [0, n) as five limbs (the top one 0); ninv = n^-1 mod 2^64. */
static void combine62_mod(uint64_t out[5], int64_t a, const uint64_t x[5], int64_t b, const uint64_t y[5],
                          const uint64_t n[5], uint64_t ninv) {
    uint64_t t[6];
    combine(t, a, x, b, y);
    /* Plus m n with m = -t n^-1 mod 2^62, so that the low 62 bits are zero (two's complement, six limbs). */
    uint64_t m = (0 - t[0] * ninv) & ((1ULL << 62) - 1);
    mw_u128 carry = 0;
    for (int i = 0; i < 6; i++) {
        carry += (mw_u128)t[i] + (i < 5 ? (mw_u128)m * n[i] : 0);
        t[i] = (uint64_t)carry;
        carry >>= 64;
    }
    shift62(out, t);
    /* |a x + b y| < 2^62 n and m n < 2^62 n: out is in (-n, 2n), one correction brings it into [0, n). */
    if ((int64_t)out[4] < 0) {
        limbs5_add(out, out, n);
        return;
    }
    uint64_t less[5];
    if (!limbs5_sub(less, out, n)) memcpy(out, less, sizeof less);
}

/* out = s^-1 mod n, for an odd n; 0 when s is 0, not below n, or shares a factor with n. */
static int inverse_mod(uint64_t out[4], const uint64_t s[4], const uint64_t order[4]) {
    if ((s[0] | s[1] | s[2] | s[3]) == 0 || limbs_ge(s, order)) return 0;
    const uint64_t n[5] = {order[0], order[1], order[2], order[3], 0};
    uint64_t f[5], g[5] = {s[0], s[1], s[2], s[3], 0}, d[5] = {0}, e[5] = {1, 0, 0, 0, 0};
    memcpy(f, n, sizeof f);
    /* n^-1 mod 2^64 by Newton's iteration: n is its own inverse mod 2^3, and each step doubles the bits. */
    uint64_t ninv = n[0];
    for (int i = 0; i < 5; i++) ninv *= 2 - n[0] * ninv;
    int64_t delta = 1;
    /* 16 batches: more than the bound's 12, so a bug shows as no inverse rather than a loop. */
    for (int batch = 0; batch < 16 && !limbs5_are(g, 0, 0); batch++) {
        struct divsteps m = divsteps62(&delta, f[0], g[0]);
        uint64_t f2[5], g2[5], d2[5], e2[5], t[6];
        combine(t, m.u, f, m.v, g);
        shift62(f2, t);
        combine(t, m.q, f, m.r, g);
        shift62(g2, t);
        combine62_mod(d2, m.u, d, m.v, e, n, ninv);
        combine62_mod(e2, m.q, d, m.r, e, n, ninv);
        memcpy(f, f2, sizeof f);
        memcpy(g, g2, sizeof g);
        memcpy(d, d2, sizeof d);
        memcpy(e, e2, sizeof e);
    }
    if (!limbs5_are(g, 0, 0)) return 0;
    if (limbs5_are(f, 1, 0)) {
        memcpy(out, d, 4 * sizeof d[0]);
        return 1;
    }
    if (!limbs5_are(f, UINT64_MAX, UINT64_MAX) || (d[0] | d[1] | d[2] | d[3]) == 0) return 0;
    /* f = -1: s^-1 = -d = n - d. */
    uint64_t negated[5];
    limbs5_sub(negated, n, d);
    memcpy(out, negated, 4 * sizeof negated[0]);
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
        /* Edge values first: 1, 2, 3, n-1, n-2, n-0x50; then 2^k and n - 2^k for every k below 256 (long runs
         * of zeros for the divsteps to skip, and of ones); then xorshift64* bytes, reduced below n. */
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
        } else if (round < 6 + 512) {
            int bit = (round - 6) % 256;
            memset(in, 0, sizeof in);
            in[31 - bit / 8] = (uint8_t)(1u << (bit % 8));
            if (round >= 6 + 256) { /* n - 2^k */
                if (!BN_bin2bn(in, 32, s) || BN_sub(s, order, s) != 1 || BN_bn2binpad(s, in, 32) != 32) {
                    mismatches = -1;
                    goto done;
                }
            }
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
