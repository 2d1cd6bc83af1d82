#include "mw_html.h"

#include <pthread.h>
#include <string.h>

/* gumbo's destroy_node recurses per level; documents are bounded in size and
 * pre-scanned for depth by the caller, and this stack covers the remainder. */
enum { MW_HTML_STACK_BYTES = 64 * 1024 * 1024 };

typedef struct {
    const char *html;
    size_t length;
    GumboOutput *output;
} mw_html_job;

static void *mw_html_parse_thread(void *arg) {
    mw_html_job *job = arg;
    GumboOptions options = kGumboDefaultOptions;
    options.max_errors = 0;
    options.stop_on_first_error = false;
    job->output = gumbo_parse_with_options(&options, job->html, job->length);
    return NULL;
}

static void *mw_html_free_thread(void *arg) {
    GumboOutput *output = arg;
    gumbo_destroy_output(&kGumboDefaultOptions, output);
    return NULL;
}

static int mw_html_run(void *(*body)(void *), void *arg) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return -1;
    pthread_attr_setstacksize(&attr, MW_HTML_STACK_BYTES);
    pthread_t thread;
    int rc = pthread_create(&thread, &attr, body, arg);
    pthread_attr_destroy(&attr);
    if (rc != 0) return -1;
    pthread_join(thread, NULL);
    return 0;
}

GumboOutput *mw_html_parse(const char *html, size_t length) {
    mw_html_job job = { html, length, NULL };
    if (mw_html_run(mw_html_parse_thread, &job) != 0) return NULL;
    return job.output;
}

void mw_html_free(GumboOutput *output) {
    if (output == NULL) return;
    if (mw_html_run(mw_html_free_thread, output) != 0) {
        /* no thread to be had: free here rather than leak */
        gumbo_destroy_output(&kGumboDefaultOptions, output);
    }
}

const char *mw_html_tag_name(GumboTag tag) {
    if (tag == GUMBO_TAG_UNKNOWN || tag >= GUMBO_TAG_LAST) return "";
    return gumbo_normalized_tagname(tag);
}

int mw_html_tag_count(void) { return (int)GUMBO_TAG_LAST; }
