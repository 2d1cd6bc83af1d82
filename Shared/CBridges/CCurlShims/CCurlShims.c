/* placeholder: replaced by the real shim */
#include "CCurlShims.h"
int mw_CCurlShims_placeholder(void) { return 0; }
