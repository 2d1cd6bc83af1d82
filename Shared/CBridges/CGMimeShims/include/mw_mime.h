#ifndef MW_MIME_H
#define MW_MIME_H

#include <stddef.h>
#include <stdint.h>

/// What the outpost needs from one message, as UTF-8 strings (GMime decodes
/// RFC 2047 words and converts any charset); each may be NULL.
typedef struct {
    char *subject;
    char *from_name;
    char *from_address;
    /// Unix seconds of the Date header, 0 when absent or unreadable.
    int64_t date;
    /// The first text/plain part, at most `max_text` bytes.
    char *text_plain;
    /// The first text/html part, at most `max_text` bytes.
    char *text_html;
} mw_mime_summary;

/// Parses `data` (a whole RFC 5322 message). Returns 0 on success, -1 when it
/// is not a message at all. Malformed headers are tolerated.
int mw_mime_summarize(const uint8_t *data, size_t length, size_t max_text, mw_mime_summary *out);

/// Frees every string of a summary (safe on a zeroed one).
void mw_mime_summary_free(mw_mime_summary *summary);

#endif
