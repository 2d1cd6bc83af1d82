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

int mw_mime_summarize(const uint8_t *data, size_t length, size_t max_text, mw_mime_summary *out) {
    memset(out, 0, sizeof *out);
    mw_mime_init_once();
    GMimeStream *stream = g_mime_stream_mem_new_with_buffer((const char *)data, length);
    if (stream == NULL) return -1;
    GMimeParser *parser = g_mime_parser_new_with_stream(stream);
    g_object_unref(stream);
    GMimeMessage *message = g_mime_parser_construct_message(parser, NULL);
    g_object_unref(parser);
    if (message == NULL) return -1;

    out->subject = mw_strdup_bounded(g_mime_message_get_subject(message), 4096);
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
    memset(summary, 0, sizeof *summary);
}
