/* placeholder: replaced by the real shim */
#include "CMicroHTTPDShims.h"
int mw_CMicroHTTPDShims_placeholder(void) { return 0; }
