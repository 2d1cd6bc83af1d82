#pragma once
int mw_CMicroHTTPDShims_placeholder(void);
