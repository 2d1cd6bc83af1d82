#ifndef MAILWAKE_CLIBSQLITE_SHIM_H
#define MAILWAKE_CLIBSQLITE_SHIM_H
/* SQLite 3. */
#include <sqlite3.h>
#endif
