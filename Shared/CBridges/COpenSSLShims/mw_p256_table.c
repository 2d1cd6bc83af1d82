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

#include <pthread.h>
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
    q = EC_POINT_new(table->curve);
    /* oct2point checks that the point is on the curve; P-256's cofactor is 1,
     * so every point on it other than infinity has order n. */
    if (!q || EC_POINT_oct2point(table->curve, q, point, len, ctx) != 1) goto done;
    if (EC_POINT_is_at_infinity(table->curve, q)) goto done;
    table->keyed = EC_GROUP_dup(table->curve);
    if (!table->keyed) goto done;
    if (EC_GROUP_set_generator(table->keyed, q, EC_GROUP_get0_order(table->curve), BN_value_one()) != 1) goto done;
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

/* MARK: Montgomery multiplication modulo n and p
 *
 * OpenSSL's BIGNUM products reduce by division and allocate from a BN_CTX; the two products modulo n and the final
 * comparison modulo p need four limbs each, so they are done here (CIOS, R = 2^256). */

/* The P-256 field prime p (SEC 2: FFFFFFFF 00000001 00000000 00000000 00000000 FFFFFFFF FFFFFFFF FFFFFFFF), as limbs;
 * mw_p256_montgomery_check compares it against OpenSSL's own. */
static const uint64_t P256_PRIME[4] = {0xFFFFFFFFFFFFFFFFULL, 0x00000000FFFFFFFFULL, 0x0000000000000000ULL, 0xFFFFFFFF00000001ULL};
static const uint64_t LIMBS_ONE[4] = {1, 0, 0, 0};

/* -m^-1 mod 2^64 for an odd m, by Newton's iteration (m is its own inverse mod 2^3; each step doubles the bits). */
static uint64_t mont_factor(const uint64_t m[4]) {
    uint64_t inv = m[0];
    for (int i = 0; i < 5; i++) inv *= 2 - m[0] * inv;
    return 0 - inv;
}

/* out = a b 2^-256 mod m, in [0, m), for a < 2^256 and b < m (so a b < 2^256 m, and the sum stays below 2m). */
static void mont_mul(uint64_t out[4], const uint64_t a[4], const uint64_t b[4], const uint64_t m[4], uint64_t factor) {
    uint64_t t[5] = {0};
    for (int i = 0; i < 4; i++) {
        mw_u128 carry = 0;
        for (int j = 0; j < 4; j++) {
            carry += (mw_u128)a[j] * b[i] + t[j];
            t[j] = (uint64_t)carry;
            carry >>= 64;
        }
        mw_u128 top = (mw_u128)t[4] + (uint64_t)carry;
        /* t + q m is divisible by 2^64: drop its low word. */
        uint64_t q = t[0] * factor;
        carry = ((mw_u128)q * m[0] + t[0]) >> 64;
        for (int j = 1; j < 4; j++) {
            carry += (mw_u128)q * m[j] + t[j];
            t[j - 1] = (uint64_t)carry;
            carry >>= 64;
        }
        top += (uint64_t)carry;
        t[3] = (uint64_t)top;
        t[4] = (uint64_t)(top >> 64);
    }
    uint64_t less[4], borrow = 0;
    for (int i = 0; i < 4; i++) {
        mw_u128 diff = (mw_u128)t[i] - m[i] - borrow;
        less[i] = (uint64_t)diff;
        borrow = (uint64_t)(diff >> 64) & 1;
    }
    memcpy(out, (t[4] || !borrow) ? less : t, sizeof less);
}

static int limbs_equal(const uint64_t a[4], const uint64_t b[4]) {
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

/* A BIGNUM below 2^256 as limbs; 0 when it is larger or negative. */
static int limbs_from_bn(uint64_t out[4], const BIGNUM *bn) {
    uint8_t bytes[32];
    if (BN_is_negative(bn) || BN_bn2binpad(bn, bytes, 32) != 32) return 0;
    limbs_from_be(out, bytes);
    return 1;
}

/* MARK: Per-thread scratch
 *
 * A verify's BN_CTX and points are kept per thread: a fresh BN_CTX allocates every BIGNUM it hands out, about twenty
 * allocations a verify. A point records its method and curve, not its group, so one made with any table's P-256
 * group serves every table; the scratch is freed when its thread ends. */

struct verify_scratch {
    BN_CTX *ctx;
    EC_POINT *sum;
    EC_POINT *by_key;
};

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static int scratch_key_made;

static void scratch_free(void *pointer) {
    struct verify_scratch *scratch = pointer;
    if (!scratch) return;
    BN_CTX_free(scratch->ctx);
    EC_POINT_free(scratch->sum);
    EC_POINT_free(scratch->by_key);
    free(scratch);
}

static void scratch_make_key(void) { scratch_key_made = pthread_key_create(&scratch_key, scratch_free) == 0; }

static struct verify_scratch *scratch_new(const EC_GROUP *curve) {
    struct verify_scratch *scratch = calloc(1, sizeof *scratch);
    if (!scratch) return NULL;
    scratch->ctx = BN_CTX_new();
    scratch->sum = EC_POINT_new(curve);
    scratch->by_key = EC_POINT_new(curve);
    if (!scratch->ctx || !scratch->sum || !scratch->by_key) {
        scratch_free(scratch);
        return NULL;
    }
    return scratch;
}

/* The calling thread's scratch; NULL when it cannot be kept (the caller then uses one of its own for the call). */
static struct verify_scratch *scratch_for(const EC_GROUP *curve) {
    pthread_once(&scratch_once, scratch_make_key);
    if (!scratch_key_made) return NULL;
    struct verify_scratch *scratch = pthread_getspecific(scratch_key);
    if (scratch) return scratch;
    scratch = scratch_new(curve);
    if (scratch && pthread_setspecific(scratch_key, scratch) != 0) {
        scratch_free(scratch);
        return NULL;
    }
    return scratch;
}

/* SEC 1 v2 section 4.1.4, with SHA-256 and a 256-bit order: no truncation. */
int mw_p256_table_verify_digest(const mw_p256_table *table, const uint8_t digest[32], const uint8_t *sig, size_t siglen) {
    if (!table || !digest || !sig || siglen != 64) return 0;
    uint64_t r[4], s[4], e[4];
    limbs_from_be(r, sig);
    limbs_from_be(s, sig + 32);
    limbs_from_be(e, digest);
    /* r and s in [1, n-1]. */
    if ((r[0] | r[1] | r[2] | r[3]) == 0 || (s[0] | s[1] | s[2] | s[3]) == 0 || limbs_ge(r, P256_ORDER)
        || limbs_ge(s, P256_ORDER))
        return 0;
    /* w = (s R^-1)^-1 = s^-1 R, so that u1 = e w R^-1 = e s^-1 and u2 = r w R^-1 = r s^-1 (mod n); e may exceed n,
     * mont_mul reduces. */
    const uint64_t orderFactor = mont_factor(P256_ORDER);
    uint64_t sOverR[4], w[4], u1[4], u2[4];
    mont_mul(sOverR, s, LIMBS_ONE, P256_ORDER, orderFactor);
    if (!inverse_mod(w, sOverR, P256_ORDER)) return -1;
    mont_mul(u1, e, w, P256_ORDER, orderFactor);
    mont_mul(u2, r, w, P256_ORDER, orderFactor);
    uint8_t u1Bytes[32], u2Bytes[32];
    limbs_to_be(u1Bytes, u1);
    limbs_to_be(u2Bytes, u2);

    struct verify_scratch *scratch = scratch_for(table->curve), *own = NULL;
    if (!scratch) {
        /* No thread scratch (the key or an allocation failed): one for this verify alone, rather than refusing. */
        scratch = own = scratch_new(table->curve);
        if (!scratch) return -1;
    }
    BN_CTX *ctx = scratch->ctx;
    int rc = -1;
    BN_CTX_start(ctx);
    BIGNUM *u1Number = BN_CTX_get(ctx), *u2Number = BN_CTX_get(ctx), *x = BN_CTX_get(ctx), *z = BN_CTX_get(ctx);
    if (!z || !BN_bin2bn(u1Bytes, 32, u1Number) || !BN_bin2bn(u2Bytes, 32, u2Number)) goto done;
    /* (X, Y, Z) = u1*G + u2*Q, each from its table, in Jacobian coordinates. */
    if (EC_POINT_mul(table->curve, scratch->sum, u1Number, NULL, NULL, ctx) != 1) goto done;
    if (EC_POINT_mul(table->keyed, scratch->by_key, u2Number, NULL, NULL, ctx) != 1) goto done;
    if (EC_POINT_add(table->curve, scratch->sum, scratch->sum, scratch->by_key, ctx) != 1) goto done;
    if (EC_POINT_is_at_infinity(table->curve, scratch->sum)) {
        rc = 0;
        goto done;
    }
    if (EC_POINT_get_Jprojective_coordinates_GFp(table->curve, scratch->sum, x, NULL, z, ctx) != 1) goto done;
    /* Valid when the affine x = X / Z^2 is r mod n, that is, since x < p < 2n, when X = r Z^2 or X = (r + n) Z^2
     * (mod p) with r + n < p: compared without inverting Z. Both sides carry R^-2: mont(mont(Z, Z), r) against
     * mont(mont(X, 1), 1). */
    uint64_t xLimbs[4], zLimbs[4];
    if (!limbs_from_bn(xLimbs, x) || !limbs_from_bn(zLimbs, z) || limbs_ge(xLimbs, P256_PRIME) || limbs_ge(zLimbs, P256_PRIME))
        goto done;
    const uint64_t primeFactor = mont_factor(P256_PRIME);
    uint64_t zSquared[4], target[4], candidate[4];
    mont_mul(zSquared, zLimbs, zLimbs, P256_PRIME, primeFactor);
    mont_mul(target, xLimbs, LIMBS_ONE, P256_PRIME, primeFactor);
    mont_mul(target, target, LIMBS_ONE, P256_PRIME, primeFactor);
    mont_mul(candidate, r, zSquared, P256_PRIME, primeFactor);
    rc = limbs_equal(candidate, target);
    if (!rc) {
        uint64_t rPlusN[5], rWide[5] = {r[0], r[1], r[2], r[3], 0}, nWide[5] = {P256_ORDER[0], P256_ORDER[1], P256_ORDER[2], P256_ORDER[3], 0};
        limbs5_add(rPlusN, rWide, nWide);
        if (rPlusN[4] == 0 && !limbs_ge(rPlusN, P256_PRIME)) {
            mont_mul(candidate, rPlusN, zSquared, P256_PRIME, primeFactor);
            rc = limbs_equal(candidate, target);
        }
    }
done:
    BN_CTX_end(ctx);
    scratch_free(own);
    ERR_clear_error();
    return rc;
}

int mw_p256_table_verify(const mw_p256_table *table, const uint8_t *msg, size_t len, const uint8_t *sig, size_t siglen) {
    uint8_t digest[32];
    if (mw_sha256(msg, len, digest) != 1) return -1;
    return mw_p256_table_verify_digest(table, digest, sig, siglen);
}

/* For the checks: 1 when a constant's limbs are OpenSSL's value, 0 when they differ, -1 on an error. */
static int constant_matches(const uint64_t limbs[4], const BIGNUM *theirs) {
    uint8_t ours[32], expected[32];
    limbs_to_be(ours, limbs);
    if (BN_bn2binpad(theirs, expected, 32) != 32) return -1;
    return memcmp(ours, expected, 32) == 0;
}

/* For the checks: the next xorshift64* value. */
static uint64_t next_random(uint64_t *state) {
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

int mw_p256_order_inverse_check(uint64_t seed, int rounds) {
    BN_CTX *ctx = BN_CTX_new();
    EC_GROUP *curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *s = BN_new(), *expected = BN_new();
    int mismatches = -1;
    if (!ctx || !curve || !s || !expected) goto done;
    const BIGNUM *order = EC_GROUP_get0_order(curve);
    uint8_t nBytes[32], in[32], want[32], got[32];
    uint64_t sLimbs[4], w[4];
    limbs_to_be(nBytes, P256_ORDER);
    int matches = constant_matches(P256_ORDER, order);
    /* A wrong constant would make every inverse differ: count them all. */
    mismatches = matches < 0 ? -1 : matches ? 0 : rounds;
    if (mismatches != 0) goto done;
    uint64_t x = seed | 1;
    for (int round = 0; round < rounds; round++) {
        /* Edge values first: 1, 2, 3, n-1, n-2, n-0x50; then 2^k and n - 2^k for every k below 256 (long runs
         * of zeros for the divsteps to skip, and of ones); then xorshift64* bytes, reduced below n. */
        for (int i = 0; i < 32; i++) in[i] = (uint8_t)(next_random(&x) >> 56);
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

int mw_p256_montgomery_check(uint64_t seed, int rounds) {
    BN_CTX *ctx = BN_CTX_new();
    EC_GROUP *curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *prime = BN_new(), *a = BN_new(), *b = BN_new(), *product = BN_new(), *rInverse = BN_new(), *r = BN_new();
    int mismatches = -1;
    if (!ctx || !curve || !prime || !a || !b || !product || !rInverse || !r) goto done;
    if (EC_GROUP_get_curve(curve, prime, NULL, NULL, ctx) != 1) goto done;
    int matches = constant_matches(P256_PRIME, prime);
    /* A wrong constant would make every product differ: count them all. */
    mismatches = matches < 0 ? -1 : matches ? 0 : rounds;
    if (mismatches != 0) goto done;
    uint64_t x = seed | 1;
    for (int round = 0; round < rounds; round++) {
        /* Odd rounds modulo n, even rounds modulo p. a is any 256-bit value (a digest need not be below n), b is
         * below the modulus; the first rounds take the edges: 0, 1, m - 1 and 2^256 - 1. */
        const uint64_t *m = round % 2 ? P256_ORDER : P256_PRIME;
        uint64_t aLimbs[4], bLimbs[4], got[4];
        for (int i = 0; i < 4; i++) {
            aLimbs[i] = next_random(&x);
            bLimbs[i] = next_random(&x);
        }
        int edge = round / 2;
        if (edge < 16) {
            static const uint64_t zero[4] = {0, 0, 0, 0}, ones[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
            uint64_t below[4];
            memcpy(below, m, sizeof below);
            below[0] -= 1;
            const uint64_t *aEdges[4] = {zero, LIMBS_ONE, below, ones}, *bEdges[4] = {zero, LIMBS_ONE, below, below};
            memcpy(aLimbs, aEdges[edge % 4], sizeof aLimbs);
            memcpy(bLimbs, bEdges[edge / 4], sizeof bLimbs);
        }
        while (limbs_ge(bLimbs, m)) bLimbs[3] >>= 1;
        mont_mul(got, aLimbs, bLimbs, m, mont_factor(m));
        /* OpenSSL: a b R^-1 mod m. */
        uint8_t aBytes[32], bBytes[32], mBytes[32], want[32], gotBytes[32];
        limbs_to_be(aBytes, aLimbs);
        limbs_to_be(bBytes, bLimbs);
        limbs_to_be(mBytes, m);
        BN_CTX_start(ctx);
        BIGNUM *modulus = BN_CTX_get(ctx);
        if (!modulus || !BN_bin2bn(mBytes, 32, modulus) || !BN_bin2bn(aBytes, 32, a) || !BN_bin2bn(bBytes, 32, b)
            || !BN_set_word(r, 0) || !BN_set_bit(r, 256) || !BN_mod_inverse(rInverse, r, modulus, ctx)
            || BN_mod_mul(product, a, b, modulus, ctx) != 1 || BN_mod_mul(product, product, rInverse, modulus, ctx) != 1
            || BN_bn2binpad(product, want, 32) != 32) {
            BN_CTX_end(ctx);
            mismatches = -1;
            goto done;
        }
        BN_CTX_end(ctx);
        limbs_to_be(gotBytes, got);
        if (memcmp(gotBytes, want, 32) != 0) mismatches++;
    }
done:
    BN_free(prime);
    BN_free(a);
    BN_free(b);
    BN_free(product);
    BN_free(rInverse);
    BN_free(r);
    EC_GROUP_free(curve);
    BN_CTX_free(ctx);
    ERR_clear_error();
    return mismatches;
}
