#include "mw_mime.h"

#include <gmime/gmime.h>
#include <stdlib.h>
#include <string.h>

static void mw_mime_init_once(void) {
    static gsize done = 0;
    if (g_once_init_enter(&done)) {
        g_mime_init();
        g_once_init_leave(&done, 1);
    }
}

/* GMime's parser recurses once per nested multipart and checks every line
 * against every open boundary: a message declaring more boundaries than any
 * real one is refused before it reaches the parser. */
enum { MW_MIME_MAX_BOUNDARIES = 512 };

static int mw_mime_too_complex(const uint8_t *data, size_t length) {
    static const char needle[] = "boundary";
    size_t count = 0;
    for (size_t i = 0; i + sizeof needle - 1 <= length; i++) {
        if ((data[i] | 0x20) != 'b') continue;
        size_t j = 1;
        while (j < sizeof needle - 1 && (data[i + j] | 0x20) == needle[j]) j++;
        if (j == sizeof needle - 1 && ++count > MW_MIME_MAX_BOUNDARIES) return 1;
    }
    return 0;
}

static char *mw_strdup_bounded(const char *s, size_t max) {
    if (s == NULL) return NULL;
    size_t n = strlen(s);
    if (n > max) {
        n = max;
        /* never cut a UTF-8 sequence in half */
        while (n > 0 && (((unsigned char)s[n]) & 0xC0) == 0x80) n--;
    }
    char *copy = malloc(n + 1);
    if (copy == NULL) return NULL;
    memcpy(copy, s, n);
    copy[n] = '\0';
    return copy;
}

typedef struct {
    size_t max_text;
    mw_mime_summary *out;
} mw_walk;

static void mw_visit(GMimeObject *parent, GMimeObject *part, gpointer data) {
    (void)parent;
    mw_walk *walk = data;
    if (!GMIME_IS_TEXT_PART(part)) return;
    GMimeContentDisposition *disposition = g_mime_object_get_content_disposition(part);
    if (disposition != NULL && g_mime_content_disposition_is_attachment(disposition)) return;
    GMimeContentType *type = g_mime_object_get_content_type(part);
    int plain = g_mime_content_type_is_type(type, "text", "plain");
    int html = g_mime_content_type_is_type(type, "text", "html");
    if ((plain && walk->out->text_plain != NULL) || (html && walk->out->text_html != NULL) || (!plain && !html)) return;
    char *text = g_mime_text_part_get_text(GMIME_TEXT_PART(part));
    if (text == NULL) return;
    if (plain) walk->out->text_plain = mw_strdup_bounded(text, walk->max_text);
    else walk->out->text_html = mw_strdup_bounded(text, walk->max_text);
    g_free(text);
}

/* GMime joins adjacent encoded-words of one charset before decoding them, so
 * that a character split across two words survives; with base64 it joins the
 * encoded text, and a word that ends in "=" padding (as Python's email package
 * and many mailers write them) cuts the joined text short: the rest of the
 * subject is lost. Each base64 word is rewritten as the same bytes in "Q"
 * encoding, which joins safely, before GMime decodes the header. */
static char *mw_rewrite_base64_words(const char *raw) {
    GString *out = g_string_sized_new(strlen(raw) * 3 + 16);
    const char *p = raw;
    while (*p != '\0') {
        const char *start = strstr(p, "=?");
        if (start == NULL) { g_string_append(out, p); break; }
        g_string_append_len(out, p, start - p);
        const char *q1 = strchr(start + 2, '?');
        const char *q2 = q1 != NULL ? strchr(q1 + 1, '?') : NULL;
        const char *end = q2 != NULL ? strstr(q2 + 1, "?=") : NULL;
        if (end == NULL || q2 != q1 + 2 || (q1[1] != 'B' && q1[1] != 'b') || memchr(start, ' ', end - start) != NULL) {
            g_string_append_len(out, start, 2);
            p = start + 2;
            continue;
        }
        gchar *text = g_strndup(q2 + 1, end - (q2 + 1));
        gsize length = 0;
        guchar *bytes = g_base64_decode(text, &length);
        g_free(text);
        g_string_append_len(out, start, q1 - start);
        g_string_append(out, "?Q?");
        for (gsize i = 0; i < length; i++) {
            unsigned char c = bytes[i];
            if (g_ascii_isalnum(c)) g_string_append_c(out, (char)c);
            else g_string_append_printf(out, "=%02X", c);
        }
        g_string_append(out, "?=");
        g_free(bytes);
        p = end + 2;
    }
    return g_string_free(out, FALSE);
}

/* The decoded Subject, or NULL; the caller frees it with g_free. */
static char *mw_decoded_subject(GMimeMessage *message) {
    GMimeHeaderList *headers = g_mime_object_get_header_list(GMIME_OBJECT(message));
    GMimeHeader *header = headers != NULL ? g_mime_header_list_get_header(headers, "Subject") : NULL;
    const char *raw = header != NULL ? g_mime_header_get_raw_value(header) : NULL;
    if (raw == NULL) return g_strdup(g_mime_message_get_subject(message));
    GString *unfolded = g_string_new(NULL);
    for (const char *c = raw; *c != '\0'; c++) if (*c != '\r' && *c != '\n') g_string_append_c(unfolded, *c);
    char *rewritten = mw_rewrite_base64_words(unfolded->str);
    g_string_free(unfolded, TRUE);
    char *decoded = g_mime_utils_header_decode_text(NULL, rewritten);
    g_free(rewritten);
    if (decoded != NULL) g_strstrip(decoded);
    return decoded;
}

/* The Authentication-Results values, top first, unfolded, one per line (at most 16 of 8 KiB). */
static char *mw_authentication_results(GMimeMessage *message) {
    GMimeHeaderList *headers = g_mime_object_get_header_list(GMIME_OBJECT(message));
    if (headers == NULL) return NULL;
    GString *out = g_string_new(NULL);
    int count = g_mime_header_list_get_count(headers), taken = 0;
    for (int i = 0; i < count && taken < 16; i++) {
        GMimeHeader *header = g_mime_header_list_get_header_at(headers, i);
        const char *name = header != NULL ? g_mime_header_get_name(header) : NULL;
        const char *raw = header != NULL ? g_mime_header_get_raw_value(header) : NULL;
        if (name == NULL || raw == NULL || g_ascii_strcasecmp(name, "Authentication-Results") != 0 || strlen(raw) > 8192) continue;
        for (const char *c = raw; *c != '\0'; c++) g_string_append_c(out, *c == '\r' || *c == '\n' ? ' ' : *c);
        g_string_append_c(out, '\n');
        taken++;
    }
    char *result = out->len > 0 ? strdup(out->str) : NULL;
    g_string_free(out, TRUE);
    return result;
}

/* Parses a whole message: 0 with *message set, -1 not a message, -2 too complex. */
static int mw_mime_parse_message(const uint8_t *data, size_t length, GMimeMessage **message) {
    *message = NULL;
    if (mw_mime_too_complex(data, length)) return -2;
    mw_mime_init_once();
    GMimeStream *stream = g_mime_stream_mem_new_with_buffer((const char *)data, length);
    if (stream == NULL) return -1;
    GMimeParser *parser = g_mime_parser_new_with_stream(stream);
    g_object_unref(stream);
    *message = g_mime_parser_construct_message(parser, NULL);
    g_object_unref(parser);
    return *message == NULL ? -1 : 0;
}

int mw_mime_summarize(const uint8_t *data, size_t length, size_t max_text, mw_mime_summary *out) {
    memset(out, 0, sizeof *out);
    GMimeMessage *message;
    int rc = mw_mime_parse_message(data, length, &message);
    if (rc != 0) return rc;

    char *subject = mw_decoded_subject(message);
    out->subject = mw_strdup_bounded(subject, 4096);
    g_free(subject);
    out->authentication_results = mw_authentication_results(message);
    InternetAddressList *from = g_mime_message_get_from(message);
    if (from != NULL && internet_address_list_length(from) > 0) {
        InternetAddress *address = internet_address_list_get_address(from, 0);
        out->from_name = mw_strdup_bounded(internet_address_get_name(address), 1024);
        if (INTERNET_ADDRESS_IS_MAILBOX(address)) {
            out->from_address = mw_strdup_bounded(internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(address)), 1024);
        }
    }
    GDateTime *date = g_mime_message_get_date(message);
    if (date != NULL) out->date = g_date_time_to_unix(date);

    mw_walk walk = { max_text, out };
    g_mime_message_foreach(message, mw_visit, &walk);
    g_object_unref(message);
    return 0;
}

void mw_mime_summary_free(mw_mime_summary *summary) {
    free(summary->subject);
    free(summary->from_name);
    free(summary->from_address);
    free(summary->text_plain);
    free(summary->text_html);
    free(summary->authentication_results);
    memset(summary, 0, sizeof *summary);
}

/* ---- body reading ---- */

enum { MW_MIME_MAX_DEPTH = 64 };

typedef struct {
    size_t max_text;
    size_t max_inline;
    const char *want_cid;
    mw_mime_body *out;
} mw_body_walk;

static int mw_copy_addresses(InternetAddressList *list, mw_mime_address **out, size_t *count) {
    *out = NULL;
    *count = 0;
    if (list == NULL) return 0;
    int n = internet_address_list_length(list);
    if (n <= 0) return 0;
    size_t cap = 0;
    /* flatten groups one level: group members are addresses too */
    for (int i = 0; i < n; i++) {
        InternetAddress *a = internet_address_list_get_address(list, i);
        if (INTERNET_ADDRESS_IS_GROUP(a)) {
            InternetAddressList *members = internet_address_group_get_members(INTERNET_ADDRESS_GROUP(a));
            cap += members ? (size_t)internet_address_list_length(members) : 0;
        } else {
            cap += 1;
        }
    }
    if (cap > 1000) cap = 1000;
    if (cap == 0) return 0;
    *out = calloc(cap, sizeof **out);
    if (*out == NULL) return -1;
    for (int i = 0; i < n && *count < cap; i++) {
        InternetAddress *a = internet_address_list_get_address(list, i);
        if (INTERNET_ADDRESS_IS_GROUP(a)) {
            InternetAddressList *members = internet_address_group_get_members(INTERNET_ADDRESS_GROUP(a));
            int m = members ? internet_address_list_length(members) : 0;
            for (int j = 0; j < m && *count < cap; j++) {
                InternetAddress *member = internet_address_list_get_address(members, j);
                if (!INTERNET_ADDRESS_IS_MAILBOX(member)) continue;
                (*out)[*count].name = mw_strdup_bounded(internet_address_get_name(member), 1024);
                (*out)[*count].address = mw_strdup_bounded(internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(member)), 1024);
                (*count)++;
            }
        } else if (INTERNET_ADDRESS_IS_MAILBOX(a)) {
            (*out)[*count].name = mw_strdup_bounded(internet_address_get_name(a), 1024);
            (*out)[*count].address = mw_strdup_bounded(internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(a)), 1024);
            (*count)++;
        }
    }
    return 0;
}

/* Decodes a leaf part's content (transfer encoding undone). */
static GByteArray *mw_part_bytes(GMimePart *part) {
    GMimeDataWrapper *content = g_mime_part_get_content(part);
    if (content == NULL) return NULL;
    GMimeStream *mem = g_mime_stream_mem_new();
    if (mem == NULL) return NULL;
    if (g_mime_data_wrapper_write_to_stream(content, mem) < 0) {
        g_object_unref(mem);
        return NULL;
    }
    GByteArray *bytes = g_byte_array_new();
    GByteArray *owned = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(mem));
    if (owned != NULL && owned->len > 0) g_byte_array_append(bytes, owned->data, owned->len);
    g_object_unref(mem);
    return bytes;
}

static void mw_take_text(GMimeTextPart *part, size_t max, char **slot, int *truncated) {
    char *text = g_mime_text_part_get_text(part);
    if (text == NULL) {
        *slot = mw_strdup_bounded("", 0);
        return;
    }
    if (strlen(text) > max) *truncated = 1;
    *slot = mw_strdup_bounded(text, max);
    g_free(text);
}

static void mw_body_visit(GMimeObject *object, int depth, mw_body_walk *walk) {
    if (object == NULL || depth > MW_MIME_MAX_DEPTH) return;
    if (GMIME_IS_MULTIPART(object)) {
        GMimeMultipart *multipart = GMIME_MULTIPART(object);
        int n = g_mime_multipart_get_count(multipart);
        for (int i = 0; i < n; i++) mw_body_visit(g_mime_multipart_get_part(multipart, i), depth + 1, walk);
        return;
    }
    if (GMIME_IS_MESSAGE_PART(object)) {
        walk->out->attachment_count++;
        return;
    }
    if (!GMIME_IS_PART(object)) return;
    mw_mime_body *out = walk->out;
    GMimeContentType *type = g_mime_object_get_content_type(object);
    GMimeContentDisposition *disposition = g_mime_object_get_content_disposition(object);
    int attachment = disposition != NULL && g_mime_content_disposition_is_attachment(disposition);
    const char *cid = g_mime_object_get_content_id(object);

    if (cid != NULL && cid[0] != '\0' && type != NULL && g_mime_content_type_is_type(type, "image", "*")) {
        if (walk->want_cid != NULL && out->part_data == NULL && strcmp(cid, walk->want_cid) == 0) {
            GByteArray *bytes = mw_part_bytes(GMIME_PART(object));
            if (bytes != NULL) {
                out->part_length = bytes->len;
                out->part_data = malloc(bytes->len > 0 ? bytes->len : 1);
                if (out->part_data != NULL && bytes->len > 0) memcpy(out->part_data, bytes->data, bytes->len);
                char *mime = g_mime_content_type_get_mime_type(type);
                out->part_type = mw_strdup_bounded(mime, 255);
                g_free(mime);
                g_byte_array_free(bytes, TRUE);
            }
        }
        if (out->inline_count < walk->max_inline) {
            if (out->inlines == NULL) out->inlines = calloc(walk->max_inline, sizeof *out->inlines);
            if (out->inlines != NULL) {
                mw_mime_inline *item = &out->inlines[out->inline_count++];
                item->content_id = mw_strdup_bounded(cid, 512);
                char *mime = g_mime_content_type_get_mime_type(type);
                item->content_type = mw_strdup_bounded(mime, 255);
                g_free(mime);
                GByteArray *bytes = mw_part_bytes(GMIME_PART(object));
                item->size = bytes ? bytes->len : 0;
                if (bytes) g_byte_array_free(bytes, TRUE);
            }
        }
        return;
    }
    if (attachment || !GMIME_IS_TEXT_PART(object)) {
        if (attachment || !(type != NULL && g_mime_content_type_is_type(type, "multipart", "*"))) out->attachment_count++;
        return;
    }
    if (g_mime_content_type_is_type(type, "text", "html")) {
        if (out->html == NULL) mw_take_text(GMIME_TEXT_PART(object), walk->max_text, &out->html, &out->html_truncated);
    } else if (g_mime_content_type_is_type(type, "text", "plain")) {
        if (out->text == NULL) mw_take_text(GMIME_TEXT_PART(object), walk->max_text, &out->text, &out->text_truncated);
    } else {
        out->attachment_count++;   /* text/calendar, text/csv …: not shown inline */
    }
}

int mw_mime_body_parse(const uint8_t *data, size_t length, size_t max_text, size_t max_inline, const char *want_cid, mw_mime_body *out) {
    memset(out, 0, sizeof *out);
    GMimeMessage *message;
    int rc = mw_mime_parse_message(data, length, &message);
    if (rc != 0) return rc;

    char *subject = mw_decoded_subject(message);
    out->subject = mw_strdup_bounded(subject, 4096);
    g_free(subject);
    GDateTime *date = g_mime_message_get_date(message);
    if (date != NULL) out->date = g_date_time_to_unix(date);
    int failed = 0;
    failed |= mw_copy_addresses(g_mime_message_get_from(message), &out->from, &out->from_count);
    failed |= mw_copy_addresses(g_mime_message_get_to(message), &out->to, &out->to_count);
    failed |= mw_copy_addresses(g_mime_message_get_cc(message), &out->cc, &out->cc_count);
    failed |= mw_copy_addresses(g_mime_message_get_reply_to(message), &out->reply_to, &out->reply_to_count);

    mw_body_walk walk = { max_text, max_inline, want_cid, out };
    mw_body_visit(g_mime_message_get_mime_part(message), 0, &walk);
    g_object_unref(message);
    if (failed) {
        mw_mime_body_free(out);
        return -1;
    }
    return 0;
}

static void mw_free_addresses(mw_mime_address *list, size_t count) {
    for (size_t i = 0; i < count; i++) {
        free(list[i].name);
        free(list[i].address);
    }
    free(list);
}

void mw_mime_body_free(mw_mime_body *body) {
    free(body->subject);
    mw_free_addresses(body->from, body->from_count);
    mw_free_addresses(body->to, body->to_count);
    mw_free_addresses(body->cc, body->cc_count);
    mw_free_addresses(body->reply_to, body->reply_to_count);
    free(body->html);
    free(body->text);
    for (size_t i = 0; i < body->inline_count; i++) {
        free(body->inlines[i].content_id);
        free(body->inlines[i].content_type);
    }
    free(body->inlines);
    free(body->part_data);
    free(body->part_type);
    memset(body, 0, sizeof *body);
}
