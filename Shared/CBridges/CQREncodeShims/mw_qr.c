#include "mw_qr.h"

#include <errno.h>
#include <limits.h>
#include <qrencode.h>

int mw_qr_encode(const uint8_t *data, size_t length, int level, uint8_t *modules, size_t capacity, int *version) {
    if (data == NULL || length == 0 || length > INT_MAX || modules == NULL || version == NULL) return MW_QR_INVALID;
    if (level < MW_QR_LEVEL_L || level > MW_QR_LEVEL_H) return MW_QR_INVALID;
    errno = 0;
    QRcode *code = QRcode_encodeData((int)length, data, 0, (QRecLevel)level);
    if (code == NULL) return errno == ERANGE ? MW_QR_TOO_LONG : MW_QR_FAILED;
    size_t width = (size_t)code->width;
    int result = (int)width;
    if (width == 0 || width > MW_QR_MAX_WIDTH || width * width > capacity) {
        result = MW_QR_INVALID;
    } else {
        /* Bit 0 of each libqrencode byte is the module colour; the others describe its role. */
        for (size_t i = 0; i < width * width; i++) modules[i] = code->data[i] & 1;
        *version = code->version;
    }
    QRcode_free(code);
    return result;
}
