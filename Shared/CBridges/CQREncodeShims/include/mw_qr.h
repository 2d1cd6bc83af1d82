#ifndef MAILWAKE_MW_QR_H
#define MAILWAKE_MW_QR_H
/*
 * Plain-signature bridge over libqrencode. The QRcode struct never leaves
 * the .c file: the caller owns the module buffer, and no pointer passed in
 * is kept after a call returns.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The widest code (version 40): modules per side. */
enum { MW_QR_MAX_WIDTH = 177 };

/* Error correction levels (libqrencode's QRecLevel order). */
enum { MW_QR_LEVEL_L = 0, MW_QR_LEVEL_M = 1, MW_QR_LEVEL_Q = 2, MW_QR_LEVEL_H = 3 };

/* Why mw_qr_encode failed. */
enum {
    /* The data does not fit a version 40 code at the level asked for. */
    MW_QR_TOO_LONG = -1,
    /* No data, a level out of range, or a buffer too small. */
    MW_QR_INVALID = -2,
    /* libqrencode ran out of memory or failed otherwise. */
    MW_QR_FAILED = -3,
};

/* Encodes `length` bytes (8-bit byte mode, NUL allowed) at `level`, in the
 * smallest version that holds them. Writes width x width modules row-major
 * into `modules` (1 dark, 0 light; `capacity` >= MW_QR_MAX_WIDTH^2 always
 * suffices) and the version into *version. Returns the width (21...177) or
 * an MW_QR_* failure. */
int mw_qr_encode(const uint8_t *data, size_t length, int level, uint8_t *modules, size_t capacity, int *version);

#ifdef __cplusplus
}
#endif

#endif
