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
    /// The Authentication-Results field values (RFC 8601), top first, unfolded, each ending in a line feed; at most 16.
    char *authentication_results;
} mw_mime_summary;

/// Parses `data` (a whole RFC 5322 message). Returns 0 on success, -1 when it
/// is not a message at all, -2 when it declares more than 512 multipart
/// boundaries (no real message does). Malformed headers are tolerated.
int mw_mime_summarize(const uint8_t *data, size_t length, size_t max_text, mw_mime_summary *out);

/// Frees every string of a summary (safe on a zeroed one).
void mw_mime_summary_free(mw_mime_summary *summary);

/// One address of a header (UTF-8; either may be NULL).
typedef struct {
    char *name;
    char *address;
} mw_mime_address;

/// An inline part referenced by Content-ID (an image of an HTML body).
typedef struct {
    char *content_id;
    char *content_type;
    /// Decoded size in bytes.
    size_t size;
} mw_mime_inline;

/// What body reading needs from one message.
typedef struct {
    char *subject;
    int64_t date;
    mw_mime_address *from, *to, *cc, *reply_to;
    size_t from_count, to_count, cc_count, reply_to_count;
    /// The first displayable text/html part (UTF-8, at most `max_text` bytes).
    char *html;
    int html_truncated;
    /// The first displayable text/plain part (UTF-8, at most `max_text` bytes).
    char *text;
    int text_truncated;
    /// Parts with a Content-ID (at most `max_inline`).
    mw_mime_inline *inlines;
    size_t inline_count;
    /// Parts that are attachments (not shown), counted.
    size_t attachment_count;
    /// With `want_cid`: that part's decoded bytes and type, else NULL.
    unsigned char *part_data;
    size_t part_length;
    char *part_type;
} mw_mime_body;

/// Parses `data` (a whole, possibly truncated, RFC 5322 message) for
/// display. Multiparts nest at most 64 levels; attached messages count as
/// attachments. Returns 0, -1 when it is not a message at all, -2 when it
/// declares more than 512 multipart boundaries.
int mw_mime_body_parse(const uint8_t *data, size_t length, size_t max_text, size_t max_inline, const char *want_cid, mw_mime_body *out);

/// Frees everything a body holds (safe on a zeroed one).
void mw_mime_body_free(mw_mime_body *body);

#endif
