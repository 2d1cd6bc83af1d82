/*
 * ECDSA P-256 verification with a precomputed table for the public key.
 *
 * A verify computes u1*G + u2*Q. OpenSSL multiplies by the generator G with a
 * static table of its multiples and by any other point Q with a window it
 * builds on every call, which is about two thirds of a verify. Here both G
 * and Q have tables of multiples: rows of affine points, row i holding
 * j * 2^(w i) * P for j = 1..2^(w-1) (w = 12 for G, 8 for a key; "Tables"
 * below). A scalar written in signed w-bit digits then multiplies with one
 * table entry per digit and no doubling at all: u1*G + u2*Q is at most 55
 * additions of an affine point to a Jacobian sum.
 *
 * OpenSSL's own tables for G have this layout (w = 7), but its P-256 code reads
 * every entry of a row for each digit (a constant-time gather, needed for
 * secret scalars): a whole 151 KB table per multiplication, which a busy
 * relay with tens of keys serves from memory rather than cache. A verify
 * works on public data only (the key, the digest, the signature), so here a
 * digit reads its one 64-byte entry, and variable-time arithmetic is fine, as
 * it is in OpenSSL's own verify.
 *
 * The field arithmetic is Montgomery multiplication modulo p on four 64-bit
 * limbs (CIOS, below); OpenSSL only decodes and checks the public point and
 * gives G's coordinates, once.
 */
#include "mw_crypto.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>

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

/* MARK: The field modulo p, in Montgomery form
 *
 * A field element is a R mod p (R = 2^256) in [0, p), four limbs. For p, -p^-1 mod 2^64 is 1 (p = -1 mod 2^64);
 * mw_p256_multiplication_check confirms it. Every function below writes its result only after reading its inputs,
 * so the output may be an input. */

#define P256_PRIME_FACTOR 1

static const uint64_t FIELD_ZERO[4] = {0, 0, 0, 0};
/* R mod p = 2^256 - p (the Montgomery form of 1), and R^2 mod p, from field_constants. */
static uint64_t FIELD_ONE[4], FIELD_R2[4];

/* out = t - p when t (with `carry`, its bit 256) is p or more, t otherwise; for t < 2p. */
static void fe_reduce_once(uint64_t out[4], const uint64_t t[4], uint64_t carry) {
    uint64_t less[4], borrow = 0;
    for (int i = 0; i < 4; i++) {
        mw_u128 diff = (mw_u128)t[i] - P256_PRIME[i] - borrow;
        less[i] = (uint64_t)diff;
        borrow = (uint64_t)(diff >> 64) & 1;
    }
    memcpy(out, (carry || !borrow) ? less : t, sizeof less);
}

/* a b R^-1 mod p for a, b < p, word by word (CIOS) using p's shape: after adding a b_i, a step adds q p for q = the
 * lowest word t_0 (P256_PRIME_FACTOR is 1). With p = 2^256 - 2^224 + 2^192 + 2^96 - 1, t_0 + q (2^64 - 1) is q 2^64:
 * the word becomes 0 and carries q; word 1 of p, 2^32 - 1, with that carry adds q 2^32; word 2 of p is 0; word 3
 * adds q (2^64 - 2^32 + 1). The sum stays below 2p: one subtraction at the end. Agrees with mont_mul
 * (mw_p256_multiplication_check). */
static void fe_mul(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]) {
    const uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0;
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        const uint64_t bi = b[i];
        mw_u128 acc = (mw_u128)a0 * bi + t0;
        t0 = (uint64_t)acc;
        acc = (mw_u128)a1 * bi + t1 + (uint64_t)(acc >> 64);
        t1 = (uint64_t)acc;
        acc = (mw_u128)a2 * bi + t2 + (uint64_t)(acc >> 64);
        t2 = (uint64_t)acc;
        acc = (mw_u128)a3 * bi + t3 + (uint64_t)(acc >> 64);
        t3 = (uint64_t)acc;
        /* t + a b_i < a 2^64 + p < 2^320: five words hold it. */
        t4 += (uint64_t)(acc >> 64);
        /* t + q p, one word down. */
        const uint64_t q = t0;
        acc = (mw_u128)t1 + (q << 32);
        t0 = (uint64_t)acc;
        acc = (acc >> 64) + t2 + (q >> 32);
        t1 = (uint64_t)acc;
        acc = (acc >> 64) + t3 + (mw_u128)q * P256_PRIME[3];
        t2 = (uint64_t)acc;
        acc = (acc >> 64) + t4;
        t3 = (uint64_t)acc;
        t4 = (uint64_t)(acc >> 64);
    }
    const uint64_t sum[4] = {t0, t1, t2, t3};
    fe_reduce_once(out, sum, t4);
}

static void fe_add(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t sum[4];
    mw_u128 carry = 0;
    for (int i = 0; i < 4; i++) {
        carry += (mw_u128)a[i] + b[i];
        sum[i] = (uint64_t)carry;
        carry >>= 64;
    }
    fe_reduce_once(out, sum, (uint64_t)carry);
}

static void fe_sub(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t difference[4], borrow = 0;
    for (int i = 0; i < 4; i++) {
        mw_u128 diff = (mw_u128)a[i] - b[i] - borrow;
        difference[i] = (uint64_t)diff;
        borrow = (uint64_t)(diff >> 64) & 1;
    }
    if (borrow) {
        mw_u128 carry = 0;
        for (int i = 0; i < 4; i++) {
            carry += (mw_u128)difference[i] + P256_PRIME[i];
            difference[i] = (uint64_t)carry;
            carry >>= 64;
        }
    }
    memcpy(out, difference, sizeof difference);
}

static int fe_is_zero(const uint64_t a[4]) { return (a[0] | a[1] | a[2] | a[3]) == 0; }

/* a^-1 (Montgomery form in and out) as a^(p-2), by squaring and multiplying; for a != 0. Only tables use it. */
static void fe_invert(uint64_t out[4], const uint64_t a[4]) {
    uint64_t exponent[4], result[4];
    memcpy(exponent, P256_PRIME, sizeof exponent);
    exponent[0] -= 2;
    memcpy(result, FIELD_ONE, sizeof result);
    for (int bit = 255; bit >= 0; bit--) {
        fe_mul(result, result, result);
        if ((exponent[bit / 64] >> (bit % 64)) & 1) fe_mul(result, result, a);
    }
    memcpy(out, result, sizeof result);
}

static pthread_once_t field_once = PTHREAD_ONCE_INIT;

static void field_constants(void) {
    /* 2^256 - p, then 256 doublings modulo p: 2^256 R = R^2. */
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        mw_u128 diff = (mw_u128)0 - P256_PRIME[i] - borrow;
        FIELD_ONE[i] = (uint64_t)diff;
        borrow = (uint64_t)(diff >> 64) & 1;
    }
    memcpy(FIELD_R2, FIELD_ONE, sizeof FIELD_R2);
    for (int i = 0; i < 256; i++) fe_add(FIELD_R2, FIELD_R2, FIELD_R2);
}

/* MARK: Points
 *
 * Jacobian (X, Y, Z) is the affine (X/Z^2, Y/Z^3); the formulas are the usual ones for a = -3 ("dbl-2001-b" and
 * "madd-2007-bl" of the Explicit-Formulas Database, the latter in its form with H and r). */

struct jacobian {
    uint64_t x[4], y[4], z[4];
    int infinity;
};

/* 64 bytes: one cache line when the table is aligned to 64. */
struct affine {
    uint64_t x[4], y[4];
};

static void point_double(struct jacobian *p) {
    if (p->infinity) return;
    /* P-256 has no point of order 2: y = 0 does not occur, but it would be the point at infinity. */
    if (fe_is_zero(p->y)) {
        p->infinity = 1;
        return;
    }
    uint64_t delta[4], gamma[4], beta[4], alpha[4], t[4], u[4];
    fe_mul(delta, p->z, p->z);
    fe_mul(gamma, p->y, p->y);
    fe_mul(beta, p->x, gamma);
    /* alpha = 3 (X - delta)(X + delta) */
    fe_sub(t, p->x, delta);
    fe_add(u, p->x, delta);
    fe_mul(alpha, t, u);
    fe_add(t, alpha, alpha);
    fe_add(alpha, t, alpha);
    /* Z3 = (Y + Z)^2 - gamma - delta */
    fe_add(t, p->y, p->z);
    fe_mul(t, t, t);
    fe_sub(t, t, gamma);
    fe_sub(p->z, t, delta);
    /* X3 = alpha^2 - 8 beta */
    fe_add(beta, beta, beta);
    fe_add(beta, beta, beta);
    fe_add(u, beta, beta);
    fe_mul(t, alpha, alpha);
    fe_sub(p->x, t, u);
    /* Y3 = alpha (4 beta - X3) - 8 gamma^2 */
    fe_sub(t, beta, p->x);
    fe_mul(t, alpha, t);
    fe_mul(u, gamma, gamma);
    fe_add(u, u, u);
    fe_add(u, u, u);
    fe_add(u, u, u);
    fe_sub(p->y, t, u);
}

/* p += (x2, y2), or p -= (x2, y2) when `negate`; (x2, y2) is a point of the curve (never infinity). */
static void point_add_affine(struct jacobian *p, const uint64_t x2[4], const uint64_t y2[4], int negate) {
    uint64_t y[4];
    if (negate) fe_sub(y, FIELD_ZERO, y2);
    else memcpy(y, y2, sizeof y);
    if (p->infinity) {
        memcpy(p->x, x2, sizeof p->x);
        memcpy(p->y, y, sizeof p->y);
        memcpy(p->z, FIELD_ONE, sizeof p->z);
        p->infinity = 0;
        return;
    }
    uint64_t z1z1[4], u2[4], s2[4], h[4], r[4];
    fe_mul(z1z1, p->z, p->z);
    fe_mul(u2, x2, z1z1);
    fe_mul(s2, p->z, z1z1);
    fe_mul(s2, s2, y);
    fe_sub(h, u2, p->x);
    fe_sub(r, s2, p->y);
    if (fe_is_zero(h)) {
        /* The same x: the same point (double it) or its negation (the sum is infinity). */
        if (fe_is_zero(r)) point_double(p);
        else p->infinity = 1;
        return;
    }
    uint64_t hh[4], hhh[4], v[4], x3[4], y3[4];
    fe_mul(hh, h, h);
    fe_mul(hhh, h, hh);
    fe_mul(v, p->x, hh);
    /* X3 = r^2 - H^3 - 2 X1 H^2 */
    fe_mul(x3, r, r);
    fe_sub(x3, x3, hhh);
    fe_sub(x3, x3, v);
    fe_sub(x3, x3, v);
    /* Y3 = r (X1 H^2 - X3) - Y1 H^3, Z3 = Z1 H */
    fe_sub(y3, v, x3);
    fe_mul(y3, r, y3);
    fe_mul(hhh, p->y, hhh);
    fe_sub(p->y, y3, hhh);
    fe_mul(p->z, p->z, h);
    memcpy(p->x, x3, sizeof x3);
}

/* MARK: Tables
 *
 * A table of width w has rows of 2^(w-1) affine points: row i holds j 2^(w i) P for j = 1..2^(w-1), so a scalar
 * takes one addition per row. A key's table has width 8 (33 rows of 128, 264 KiB), G's width 12 (22 rows of 2048,
 * 2.75 MiB, once per process): wider tables mean fewer additions, at the cost of memory and building time. */

#define KEY_WINDOW 8
#define KEY_ROWS 33 /* 8 x 33 = 264 bits: 256 and a carry */
#define GENERATOR_WINDOW 12
#define GENERATOR_ROWS 22 /* 12 x 22 = 264 bits */

struct mw_p256_table {
    /* entries[i 2^(w-1) + j - 1] = j 2^(w i) Q, affine, Montgomery form. */
    struct affine entries[KEY_ROWS << (KEY_WINDOW - 1)];
};

/* Makes `count` points affine with one inversion (Montgomery's trick); none may be infinity. `products` holds
 * `count` field elements. */
static void make_affine(struct affine *out, const struct jacobian *points, int count, uint64_t (*products)[4]) {
    uint64_t inverse[4];
    memcpy(products[0], points[0].z, sizeof products[0]);
    for (int k = 1; k < count; k++) fe_mul(products[k], products[k - 1], points[k].z);
    fe_invert(inverse, products[count - 1]);
    for (int k = count - 1; k >= 0; k--) {
        uint64_t zInverse[4], zz[4];
        if (k > 0) {
            fe_mul(zInverse, inverse, products[k - 1]);
            fe_mul(inverse, inverse, points[k].z);
        } else {
            memcpy(zInverse, inverse, sizeof zInverse);
        }
        fe_mul(zz, zInverse, zInverse);
        fe_mul(out[k].x, points[k].x, zz);
        fe_mul(zz, zz, zInverse);
        fe_mul(out[k].y, points[k].y, zz);
    }
}

/* Fills a table of width `window` and `rows` rows for the affine point (x, y), in Montgomery form; 0 if memory ran
 * out, or if a multiple were infinity (it cannot be, for a point of order n: j 2^(w i) is never a multiple of the
 * prime n). */
static int table_fill(struct affine *entries, int window, int rows, const uint64_t x[4], const uint64_t y[4]) {
    const int columns = 1 << (window - 1);
    struct jacobian *points = malloc((size_t)(columns + 1) * sizeof *points);
    struct affine *ends = malloc((size_t)(columns + 1) * sizeof *ends);
    uint64_t (*products)[4] = malloc((size_t)(columns + 1) * sizeof *products);
    struct affine base;
    int ok = points && ends && products;
    memcpy(base.x, x, sizeof base.x);
    memcpy(base.y, y, sizeof base.y);
    for (int i = 0; ok && i < rows; i++) {
        memcpy(points[0].x, base.x, sizeof base.x);
        memcpy(points[0].y, base.y, sizeof base.y);
        memcpy(points[0].z, FIELD_ONE, sizeof points[0].z);
        points[0].infinity = 0;
        for (int j = 1; j < columns; j++) {
            points[j] = points[j - 1];
            point_add_affine(&points[j], base.x, base.y, 0);
        }
        /* The next row's base, 2^w times this one's: twice the last entry (2^(w-1) of it). */
        points[columns] = points[columns - 1];
        point_double(&points[columns]);
        for (int j = 0; j <= columns; j++) {
            if (points[j].infinity) ok = 0;
        }
        if (!ok) break;
        make_affine(ends, points, columns + 1, products);
        memcpy(entries + (size_t)i * columns, ends, (size_t)columns * sizeof *ends);
        base = ends[columns];
    }
    free(points);
    free(ends);
    free(products);
    return ok;
}

/* Decodes an uncompressed point and checks that it is on P-256 and not infinity; its coordinates in Montgomery form. */
static int point_decode(uint64_t x[4], uint64_t y[4], const uint8_t *point, size_t len) {
    if (!point || len != 65 || point[0] != 0x04) return 0;
    EC_GROUP *curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    EC_POINT *q = curve ? EC_POINT_new(curve) : NULL;
    /* oct2point checks that the point is on the curve; P-256's cofactor is 1, so every point on it other than
     * infinity has order n. */
    int ok = q && EC_POINT_oct2point(curve, q, point, len, NULL) == 1 && !EC_POINT_is_at_infinity(curve, q);
    EC_POINT_free(q);
    EC_GROUP_free(curve);
    ERR_clear_error();
    if (!ok) return 0;
    limbs_from_be(x, point + 1);
    limbs_from_be(y, point + 33);
    pthread_once(&field_once, field_constants);
    fe_mul(x, x, FIELD_R2);
    fe_mul(y, y, FIELD_R2);
    return 1;
}

/* G's table once built; a build that failed (memory) is tried again at the next use rather than never. */
static struct affine *_Atomic generator_entries;
static pthread_mutex_t generator_lock = PTHREAD_MUTEX_INITIALIZER;

/* Builds G's table; NULL if it could not be. */
static struct affine *generator_build(void) {
    EC_GROUP *curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    uint8_t encoded[65];
    const size_t size = (size_t)(GENERATOR_ROWS << (GENERATOR_WINDOW - 1)) * sizeof(struct affine);
    struct affine *entries = aligned_alloc(64, size);
    uint64_t x[4], y[4];
    if (!curve || !entries
        || EC_POINT_point2oct(curve, EC_GROUP_get0_generator(curve), POINT_CONVERSION_UNCOMPRESSED, encoded,
                              sizeof encoded, NULL) != sizeof encoded
        || !point_decode(x, y, encoded, sizeof encoded) || !table_fill(entries, GENERATOR_WINDOW, GENERATOR_ROWS, x, y)) {
        free(entries);
        entries = NULL;
    }
    EC_GROUP_free(curve);
    ERR_clear_error();
    return entries;
}

/* G's table, built by the first use (others wait for it); NULL while it cannot be built. */
static const struct affine *generator(void) {
    struct affine *entries = atomic_load_explicit(&generator_entries, memory_order_acquire);
    if (entries) return entries;
    pthread_mutex_lock(&generator_lock);
    entries = atomic_load_explicit(&generator_entries, memory_order_relaxed);
    if (!entries) {
        entries = generator_build();
        if (entries) atomic_store_explicit(&generator_entries, entries, memory_order_release);
    }
    pthread_mutex_unlock(&generator_lock);
    return entries;
}

void mw_p256_table_free(mw_p256_table *table) { free(table); }

mw_p256_table *mw_p256_table_new(const uint8_t *point, size_t len) {
    uint64_t x[4], y[4];
    if (!generator() || !point_decode(x, y, point, len)) return NULL;
    /* 64-byte entries from a 64-byte boundary: one cache line each. */
    struct mw_p256_table *table = aligned_alloc(64, sizeof(struct mw_p256_table));
    if (!table) return NULL;
    if (!table_fill(table->entries, KEY_WINDOW, KEY_ROWS, x, y)) {
        free(table);
        return NULL;
    }
    return table;
}

/* MARK: u1 G + u2 Q */

/* k = sum of digits[i] 2^(w i) over `rows` digits, each in [-2^(w-1) + 1, 2^(w-1)], for k < 2^256 (the rows cover
 * 257 bits or more, so no carry is left). */
static void recode(int16_t *digits, const uint64_t k[4], int window, int rows) {
    const int half = 1 << (window - 1);
    int carry = 0;
    for (int i = 0; i < rows; i++) {
        int bit = window * i, word = bit / 64, shift = bit % 64;
        uint64_t bits = word < 4 ? k[word] >> shift : 0;
        if (shift + window > 64 && word < 3) bits |= k[word + 1] << (64 - shift);
        int value = (int)(bits & (uint64_t)(2 * half - 1)) + carry;
        carry = value > half;
        digits[i] = (int16_t)(carry ? value - 2 * half : value);
    }
}

/* The entry for `digit` (not 0) in row `row` of a table of width `window`: |digit| 2^(w row) P. */
static const struct affine *entry_for(const struct affine *entries, int window, int row, int digit) {
    return entries + ((size_t)row << (window - 1)) + (digit < 0 ? -digit : digit) - 1;
}

/* Starts fetching the entry of each nonzero digit (one cache line each). */
static void prefetch_entries(const struct affine *entries, int window, const int16_t *digits, int rows) {
    for (int i = 0; i < rows; i++) {
        if (digits[i]) __builtin_prefetch(entry_for(entries, window, i, digits[i]));
    }
}

/* sum += the scalar whose digits these are, times the table's point. */
static void add_entries(struct jacobian *sum, const struct affine *entries, int window, const int16_t *digits, int rows) {
    for (int i = 0; i < rows; i++) {
        if (!digits[i]) continue;
        const struct affine *entry = entry_for(entries, window, i, digits[i]);
        point_add_affine(sum, entry->x, entry->y, digits[i] < 0);
    }
}

/* sum = a G + b Q, for a and b below 2^256. */
static void multiply_both(struct jacobian *sum, const struct affine *g, const struct mw_p256_table *q, const uint64_t a[4],
                          const uint64_t b[4]) {
    int16_t da[GENERATOR_ROWS], db[KEY_ROWS];
    recode(da, a, GENERATOR_WINDOW, GENERATOR_ROWS);
    recode(db, b, KEY_WINDOW, KEY_ROWS);
    prefetch_entries(g, GENERATOR_WINDOW, da, GENERATOR_ROWS);
    prefetch_entries(q->entries, KEY_WINDOW, db, KEY_ROWS);
    sum->infinity = 1;
    add_entries(sum, g, GENERATOR_WINDOW, da, GENERATOR_ROWS);
    add_entries(sum, q->entries, KEY_WINDOW, db, KEY_ROWS);
}

/* SEC 1 v2 section 4.1.4, with SHA-256 and a 256-bit order: no truncation. */
int mw_p256_table_verify_digest(const mw_p256_table *table, const uint8_t digest[32], const uint8_t *sig, size_t siglen) {
    if (!table || !digest || !sig || siglen != 64) return 0;
    const struct affine *g = generator();
    if (!g) return -1;
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
    /* (X, Y, Z) = u1 G + u2 Q in Jacobian coordinates, Montgomery form. */
    struct jacobian sum;
    multiply_both(&sum, g, table, u1, u2);
    if (sum.infinity) return 0;
    /* Valid when the affine x = X / Z^2 is r mod n, that is, since x < p < 2n, when X = r Z^2 or X = (r + n) Z^2
     * (mod p) with r + n < p: compared without inverting Z. With X and Z in Montgomery form, mont(mont(Z, Z), r)
     * is r Z^2 and mont(X, 1) is X. */
    uint64_t zSquared[4], target[4], candidate[4];
    fe_mul(zSquared, sum.z, sum.z);
    fe_mul(target, sum.x, LIMBS_ONE);
    fe_mul(candidate, zSquared, r);
    if (limbs_equal(candidate, target)) return 1;
    uint64_t rPlusN[5], rWide[5] = {r[0], r[1], r[2], r[3], 0}, nWide[5] = {P256_ORDER[0], P256_ORDER[1], P256_ORDER[2], P256_ORDER[3], 0};
    limbs5_add(rPlusN, rWide, nWide);
    if (rPlusN[4] != 0 || limbs_ge(rPlusN, P256_PRIME)) return 0;
    fe_mul(candidate, zSquared, rPlusN);
    return limbs_equal(candidate, target);
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

/* For the check: the affine coordinates of a Jacobian point (Montgomery form in), as 64 big-endian bytes. */
static void affine_bytes(uint8_t out[64], const struct jacobian *p) {
    struct affine point;
    uint64_t product[1][4], x[4], y[4];
    make_affine(&point, p, 1, product);
    fe_mul(x, point.x, LIMBS_ONE);
    fe_mul(y, point.y, LIMBS_ONE);
    limbs_to_be(out, x);
    limbs_to_be(out + 32, y);
}

/* For the check: the table of k G (k below n, not 0), and k G's encoding. */
static mw_p256_table *table_for_multiple(const EC_GROUP *curve, const BIGNUM *k, BN_CTX *ctx) {
    EC_POINT *point = EC_POINT_new(curve);
    uint8_t encoded[65];
    mw_p256_table *table = NULL;
    if (point && EC_POINT_mul(curve, point, k, NULL, NULL, ctx) == 1
        && EC_POINT_point2oct(curve, point, POINT_CONVERSION_UNCOMPRESSED, encoded, sizeof encoded, ctx) == sizeof encoded)
        table = mw_p256_table_new(encoded, sizeof encoded);
    EC_POINT_free(point);
    return table;
}

int mw_p256_multiplication_check(uint64_t seed, int rounds) {
    enum { KEYS = 6 };
    BN_CTX *ctx = BN_CTX_new();
    EC_GROUP *curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *k = BN_new(), *a = BN_new(), *b = BN_new(), *x = BN_new(), *y = BN_new(), *twoTo256 = BN_new();
    EC_POINT *keys[KEYS] = {0}, *expected = curve ? EC_POINT_new(curve) : NULL;
    mw_p256_table *tables[KEYS] = {0};
    int mismatches = -1;
    if (!ctx || !curve || !k || !a || !b || !x || !y || !twoTo256 || !expected || !generator()) goto done;
    const BIGNUM *order = EC_GROUP_get0_order(curve);
    /* The constants: p's Montgomery factor, and R mod p (BN: 2^256 mod p). */
    if (mont_factor(P256_PRIME) != P256_PRIME_FACTOR || EC_GROUP_get_curve(curve, x, NULL, NULL, ctx) != 1
        || !BN_set_bit(twoTo256, 256) || BN_nnmod(y, twoTo256, x, ctx) != 1 || constant_matches(FIELD_ONE, y) != 1) {
        mismatches = rounds;
        goto done;
    }
    /* Keys: G, -G, 2G, then random multiples. With G, a = b takes the doubling in an addition; with -G, a = b
     * makes every row's sum infinity. */
    uint64_t state = seed | 1;
    for (int i = 0; i < KEYS; i++) {
        uint8_t bytes[32];
        for (int j = 0; j < 32; j++) bytes[j] = (uint8_t)(next_random(&state) >> 56);
        if (i < 3) {
            if (!BN_set_word(k, i == 2 ? 2 : 1) || (i == 1 && BN_sub(k, order, k) != 1)) goto done;
        } else if (!BN_bin2bn(bytes, 32, k) || BN_nnmod(k, k, order, ctx) != 1 || BN_is_zero(k)) {
            goto done;
        }
        tables[i] = table_for_multiple(curve, k, ctx);
        keys[i] = EC_POINT_new(curve);
        if (!tables[i] || !keys[i] || EC_POINT_mul(curve, keys[i], k, NULL, NULL, ctx) != 1) goto done;
    }
    mismatches = 0;
    for (int round = 0; round < rounds; round++) {
        int key = round % KEYS;
        uint64_t aLimbs[4], bLimbs[4], fieldA[4], fieldB[4], viaGeneric[4], viaField[4];
        for (int i = 0; i < 4; i++) {
            aLimbs[i] = next_random(&state);
            bLimbs[i] = next_random(&state);
        }
        /* fe_mul against mont_mul (itself checked against OpenSSL by mw_p256_montgomery_check), below p;
         * the first rounds take p - 1 to p - 4 (the largest products). */
        memcpy(fieldA, aLimbs, sizeof fieldA);
        memcpy(fieldB, bLimbs, sizeof fieldB);
        while (limbs_ge(fieldA, P256_PRIME)) fieldA[3] >>= 1;
        while (limbs_ge(fieldB, P256_PRIME)) fieldB[3] >>= 1;
        if (round < 4) {
            memcpy(fieldA, P256_PRIME, sizeof fieldA);
            fieldA[0] -= 1 + (uint64_t)round;
            memcpy(fieldB, P256_PRIME, sizeof fieldB);
            fieldB[0] -= 1;
        }
        mont_mul(viaGeneric, fieldA, fieldB, P256_PRIME, mont_factor(P256_PRIME));
        fe_mul(viaField, fieldA, fieldB);
        if (!limbs_equal(viaGeneric, viaField)) mismatches++;
        /* Scalars below n. The first rounds take edges, each for a and then for b: 0, 1, the largest digit and one
         * more (the first value with a carry; a's for G's table, b's for the key's), n - 1, and two
         * patterns; then a = b. */
        while (limbs_ge(aLimbs, P256_ORDER)) aLimbs[3] >>= 1;
        while (limbs_ge(bLimbs, P256_ORDER)) bLimbs[3] >>= 1;
        int edge = round / KEYS;
        if (edge < 14) {
            uint64_t value[4] = {0, 0, 0, 0};
            switch (edge % 7) {
            case 1: value[0] = 1; break;
            case 2: value[0] = (uint64_t)1 << ((edge < 7 ? GENERATOR_WINDOW : KEY_WINDOW) - 1); break;
            case 3: value[0] = ((uint64_t)1 << ((edge < 7 ? GENERATOR_WINDOW : KEY_WINDOW) - 1)) + 1; break;
            case 4: memcpy(value, P256_ORDER, sizeof value); value[0] -= 1; break;
            case 5: case 6: {
                /* The largest digit in every window below bit 252, or one more (a carry through every row); a's
                 * windows are G's, b's the key's. */
                int window = edge < 7 ? GENERATOR_WINDOW : KEY_WINDOW;
                uint64_t digit = ((uint64_t)1 << (window - 1)) + (edge % 7 == 6);
                for (int bit = 0; bit + window <= 252; bit += window) {
                    value[bit / 64] |= digit << (bit % 64);
                    if (bit % 64 + window > 64) value[bit / 64 + 1] |= digit >> (64 - bit % 64);
                }
                break;
            }
            default: break;
            }
            memcpy(edge < 7 ? aLimbs : bLimbs, value, sizeof value);
        } else if (edge < 16) {
            memcpy(bLimbs, aLimbs, sizeof bLimbs);
        }
        struct jacobian sum;
        multiply_both(&sum, generator(), tables[key], aLimbs, bLimbs);
        uint8_t aBytes[32], bBytes[32], ours[64], theirs[64];
        limbs_to_be(aBytes, aLimbs);
        limbs_to_be(bBytes, bLimbs);
        if (!BN_bin2bn(aBytes, 32, a) || !BN_bin2bn(bBytes, 32, b)
            || EC_POINT_mul(curve, expected, a, keys[key], b, ctx) != 1) {
            mismatches = -1;
            goto done;
        }
        if (EC_POINT_is_at_infinity(curve, expected) || sum.infinity) {
            if (!(EC_POINT_is_at_infinity(curve, expected) && sum.infinity)) mismatches++;
            continue;
        }
        if (EC_POINT_get_affine_coordinates(curve, expected, x, y, ctx) != 1 || BN_bn2binpad(x, theirs, 32) != 32
            || BN_bn2binpad(y, theirs + 32, 32) != 32) {
            mismatches = -1;
            goto done;
        }
        affine_bytes(ours, &sum);
        if (memcmp(ours, theirs, sizeof ours) != 0) mismatches++;
    }
done:
    for (int i = 0; i < KEYS; i++) {
        mw_p256_table_free(tables[i]);
        EC_POINT_free(keys[i]);
    }
    EC_POINT_free(expected);
    BN_free(k);
    BN_free(a);
    BN_free(b);
    BN_free(x);
    BN_free(y);
    BN_free(twoTo256);
    EC_GROUP_free(curve);
    BN_CTX_free(ctx);
    ERR_clear_error();
    return mismatches;
}

/* MARK: The verify's own checks, against the key alone
 *
 * Signatures are built for chosen u1 and u2 (R = u1 G + u2 Q, s = r / u2, e = u1 s), so that every branch of the
 * range checks and of the final comparison is taken on purpose, and each answer is compared with what the check
 * expects and with mw_ecdsa_verify_digest (OpenSSL's EVP verify with the key alone). */

struct verify_check {
    EC_GROUP *curve;
    BN_CTX *ctx;
    const BIGNUM *order;
    BIGNUM *prime;
    uint64_t state;
    int mismatches;
    int failed;
    /* The last key's encoding, table and key alone, kept while the next checks use the same key. */
    uint8_t encoded[65];
    mw_p256_table *table;
    mw_key *key;
};

/* A scalar in [1, n). */
static int random_scalar(struct verify_check *c, BIGNUM *out) {
    uint8_t bytes[32];
    do {
        for (int i = 0; i < 32; i++) bytes[i] = (uint8_t)(next_random(&c->state) >> 56);
        if (!BN_bin2bn(bytes, 32, out) || BN_nnmod(out, out, c->order, c->ctx) != 1) return 0;
    } while (BN_is_zero(out));
    return 1;
}

/* Verifies (r, s) over digest e with Q's table and with the key alone; counts a mismatch when either answer is not
 * `expected`. r, s and e are taken modulo 2^256 as given (they may be n or more). */
static void expect_verify(struct verify_check *c, const EC_POINT *q, const BIGNUM *r, const BIGNUM *s, const BIGNUM *e,
                          int expected) {
    uint8_t encoded[65], digest[32], signature[64];
    if (EC_POINT_point2oct(c->curve, q, POINT_CONVERSION_UNCOMPRESSED, encoded, sizeof encoded, c->ctx) != sizeof encoded
        || BN_bn2binpad(e, digest, 32) != 32 || BN_bn2binpad(r, signature, 32) != 32
        || BN_bn2binpad(s, signature + 32, 32) != 32) {
        c->failed = 1;
        return;
    }
    if (!c->table || memcmp(encoded, c->encoded, sizeof encoded) != 0) {
        mw_p256_table_free(c->table);
        mw_key_free(c->key);
        memcpy(c->encoded, encoded, sizeof encoded);
        c->table = mw_p256_table_new(encoded, sizeof encoded);
        c->key = mw_p256_public_from_x963(encoded, sizeof encoded);
    }
    if (!c->table || !c->key) {
        c->failed = 1;
        return;
    }
    int withTable = mw_p256_table_verify_digest(c->table, digest, signature, sizeof signature);
    int alone = mw_ecdsa_verify_digest(c->key, digest, signature, sizeof signature);
    if (withTable != expected || alone != expected) c->mismatches++;
}

/* q = u2^-1 (R - u1 G): the key for which u1 G + u2 q is R. */
static int key_reaching(struct verify_check *c, EC_POINT *q, const EC_POINT *point, const BIGNUM *u1, const BIGNUM *u2) {
    EC_POINT *u1G = EC_POINT_new(c->curve);
    BIGNUM *inverse = BN_new();
    int ok = u1G && inverse && EC_POINT_mul(c->curve, u1G, u1, NULL, NULL, c->ctx) == 1
        && EC_POINT_invert(c->curve, u1G, c->ctx) == 1 && EC_POINT_add(c->curve, q, point, u1G, c->ctx) == 1
        && BN_mod_inverse(inverse, u2, c->order, c->ctx) && EC_POINT_mul(c->curve, q, NULL, q, inverse, c->ctx) == 1
        && !EC_POINT_is_at_infinity(c->curve, q);
    EC_POINT_free(u1G);
    BN_free(inverse);
    return ok;
}

/* A point whose x is `x` or, when none is, the first value above it that is (x moves there); 0 if none is found. */
static int point_with_x_from(struct verify_check *c, EC_POINT *point, BIGNUM *x) {
    for (int tries = 0; tries < 200; tries++) {
        if (EC_POINT_set_compressed_coordinates(c->curve, point, x, (int)(next_random(&c->state) & 1), c->ctx) == 1) return 1;
        ERR_clear_error();
        if (!BN_add_word(x, 1)) return 0;
    }
    return 0;
}

/* Signs for `point` with s given (small ones let s + n stay below 2^256): u2 = r / s, a random u1, e = u1 s; q is
 * the key. */
static int sign_with_s(struct verify_check *c, EC_POINT *q, const EC_POINT *point, const BIGNUM *r, const BIGNUM *s,
                       BIGNUM *e) {
    BIGNUM *u1 = BN_new(), *u2 = BN_new(), *inverse = BN_new();
    int ok = u1 && u2 && inverse && random_scalar(c, u1) && BN_mod_inverse(inverse, s, c->order, c->ctx)
        && BN_mod_mul(u2, r, inverse, c->order, c->ctx) == 1 && !BN_is_zero(u2) && key_reaching(c, q, point, u1, u2)
        && BN_mod_mul(e, u1, s, c->order, c->ctx) == 1;
    BN_free(u1);
    BN_free(u2);
    BN_free(inverse);
    return ok;
}

/* Signs for `point` with r given and a random s. */
static int sign_for(struct verify_check *c, EC_POINT *q, const EC_POINT *point, const BIGNUM *r, BIGNUM *s, BIGNUM *e) {
    return random_scalar(c, s) && sign_with_s(c, q, point, r, s, e);
}

/* out = in with bit `bit` flipped. */
static int toggled(BIGNUM *out, const BIGNUM *in, int bit) {
    return BN_copy(out, in) && (BN_is_bit_set(out, bit) ? BN_clear_bit(out, bit) : BN_set_bit(out, bit));
}

static void verify_check_round(struct verify_check *c) {
    EC_POINT *point = EC_POINT_new(c->curve), *q = EC_POINT_new(c->curve);
    BIGNUM *x = BN_new(), *r = BN_new(), *s = BN_new(), *e = BN_new(), *k = BN_new(), *t = BN_new(),
           *twoTo256 = BN_new();
    if (!point || !q || !x || !r || !s || !e || !k || !t || !twoTo256 || !BN_set_bit(twoTo256, 256)) {
        c->failed = 1;
        goto done;
    }
    /* A random R: valid as signed, with s negated (also valid), and with r + n and s + n (out of range, refused
     * although they are the same values modulo n). */
    if (!random_scalar(c, k) || EC_POINT_mul(c->curve, point, k, NULL, NULL, c->ctx) != 1
        || EC_POINT_get_affine_coordinates(c->curve, point, x, NULL, c->ctx) != 1
        || BN_nnmod(r, x, c->order, c->ctx) != 1 || BN_is_zero(r) || !sign_for(c, q, point, r, s, e)) {
        c->failed = 1;
        goto done;
    }
    expect_verify(c, q, r, s, e, 1);
    if (BN_sub(t, c->order, s) != 1) c->failed = 1;
    expect_verify(c, q, r, t, e, 1);
    if (BN_add(t, r, c->order) != 1) c->failed = 1;
    if (BN_cmp(t, twoTo256) < 0) expect_verify(c, q, t, s, e, 0);
    if (BN_add(t, s, c->order) != 1) c->failed = 1;
    if (BN_cmp(t, twoTo256) < 0) expect_verify(c, q, r, t, e, 0);
    /* A small s: valid, and s + n (below 2^256) refused. */
    if (!BN_set_word(t, 1 + next_random(&c->state) % 1000000) || !BN_lshift(s, t, (int)(next_random(&c->state) % 200))
        || !sign_with_s(c, q, point, r, s, e) || BN_add(t, s, c->order) != 1) {
        c->failed = 1;
        goto done;
    }
    expect_verify(c, q, r, s, e, 1);
    expect_verify(c, q, r, t, e, 0);
    if (!sign_for(c, q, point, r, s, e)) {
        c->failed = 1;
        goto done;
    }
    /* The digest and each half of the signature, one bit flipped. */
    int bit = (int)(next_random(&c->state) % 256);
    if (!toggled(t, e, bit)) c->failed = 1;
    expect_verify(c, q, r, s, t, 0);
    if (!toggled(t, r, bit)) c->failed = 1;
    if (!BN_is_zero(t)) expect_verify(c, q, t, s, e, 0);
    if (!toggled(t, s, bit)) c->failed = 1;
    if (!BN_is_zero(t)) expect_verify(c, q, r, t, e, 0);
    /* A sum at infinity: Q = kG and e = -k r make u1 + u2 k = 0. */
    if (EC_POINT_mul(c->curve, q, k, NULL, NULL, c->ctx) != 1 || BN_mod_mul(t, k, r, c->order, c->ctx) != 1
        || BN_sub(e, c->order, t) != 1 || BN_nnmod(e, e, c->order, c->ctx) != 1) {
        c->failed = 1;
        goto done;
    }
    expect_verify(c, q, r, s, e, 0);
    /* R with x in [n, p): r = x - n is valid through the r + n branch; r = x itself is out of range. */
    if (!BN_copy(x, c->order) || !BN_add_word(x, next_random(&c->state) % 1000000)
        || !point_with_x_from(c, point, x) || BN_cmp(x, c->prime) >= 0 || BN_sub(r, x, c->order) != 1 || BN_is_zero(r)
        || !sign_for(c, q, point, r, s, e)) {
        c->failed = 1;
        goto done;
    }
    expect_verify(c, q, r, s, e, 1);
    expect_verify(c, q, x, s, e, 0);
    /* R with a small x: r = x is valid; r = x + p - n (below n, and r + n is x + p, which is x modulo p) and
     * r = x + 2^256 - n (r + n carries out of 256 bits to x) must be refused. */
    if (!BN_set_word(x, 1 + next_random(&c->state) % 1000) || !point_with_x_from(c, point, x) || !BN_copy(r, x)
        || !sign_for(c, q, point, r, s, e)) {
        c->failed = 1;
        goto done;
    }
    expect_verify(c, q, r, s, e, 1);
    const BIGNUM *aliases[2] = {c->prime, twoTo256};
    for (int i = 0; i < 2; i++) {
        if (BN_add(r, x, aliases[i]) != 1 || BN_sub(r, r, c->order) != 1 || !sign_for(c, q, point, r, s, e)) {
            c->failed = 1;
            goto done;
        }
        expect_verify(c, q, r, s, e, 0);
    }
done:
    EC_POINT_free(point);
    EC_POINT_free(q);
    BN_free(x);
    BN_free(r);
    BN_free(s);
    BN_free(e);
    BN_free(k);
    BN_free(t);
    BN_free(twoTo256);
}

int mw_p256_verify_check(uint64_t seed, int rounds) {
    struct verify_check c = {.curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1), .ctx = BN_CTX_new(),
                             .prime = BN_new(), .state = seed | 1};
    int result = -1;
    if (mw_crypto_init() != 1 || !c.curve || !c.ctx || !c.prime || EC_GROUP_get_curve(c.curve, c.prime, NULL, NULL, c.ctx) != 1)
        goto done;
    c.order = EC_GROUP_get0_order(c.curve);
    for (int round = 0; round < rounds && !c.failed; round++) verify_check_round(&c);
    result = c.failed ? -1 : c.mismatches;
done:
    mw_p256_table_free(c.table);
    mw_key_free(c.key);
    BN_free(c.prime);
    BN_CTX_free(c.ctx);
    EC_GROUP_free(c.curve);
    ERR_clear_error();
    return result;
}
