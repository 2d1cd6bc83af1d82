#pragma once
int mw_CCurlShims_placeholder(void);
