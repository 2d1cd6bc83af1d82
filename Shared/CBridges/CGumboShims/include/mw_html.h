#ifndef MW_HTML_H
#define MW_HTML_H

#include <gumbo.h>
#include <stddef.h>

/// Parses `length` bytes of UTF-8 HTML into a gumbo tree. The parse runs on a
/// thread with a large stack (gumbo's tree teardown recurses once per nesting
/// level) and records no parse errors. Returns NULL when out of resources.
GumboOutput *mw_html_parse(const char *html, size_t length);

/// Frees a tree from `mw_html_parse`, on a large-stack thread as well.
void mw_html_free(GumboOutput *output);

/// The lower-case name of a known tag ("" for GUMBO_TAG_UNKNOWN).
const char *mw_html_tag_name(GumboTag tag);

/// The number of known tags (GUMBO_TAG_LAST).
int mw_html_tag_count(void);

#endif
