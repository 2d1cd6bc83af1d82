#ifndef MAILWAKE_CLIBPQ_SHIM_H
#define MAILWAKE_CLIBPQ_SHIM_H
/* libpq, PostgreSQL client library. */
#include <libpq-fe.h>
#endif
