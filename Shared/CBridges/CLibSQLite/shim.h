#ifndef MAILWAKE_CLIBSQLITE_SHIM_H
#define MAILWAKE_CLIBSQLITE_SHIM_H
/* SQLite 3. */
#include <sqlite3.h>

/*
 * Plain functions for what Swift cannot call directly: SQLITE_TRANSIENT is a
 * cast macro (SQLite copies the bytes before the call returns, so it never
 * keeps a pointer into Swift memory) and sqlite3_db_config is variadic.
 */
static inline int mw_sqlite3_bind_text_copy(sqlite3_stmt *stmt, int index, const char *text, sqlite3_uint64 length) {
    return sqlite3_bind_text64(stmt, index, text, length, SQLITE_TRANSIENT, SQLITE_UTF8);
}

static inline int mw_sqlite3_bind_blob_copy(sqlite3_stmt *stmt, int index, const void *bytes, sqlite3_uint64 length) {
    return sqlite3_bind_blob64(stmt, index, bytes, length, SQLITE_TRANSIENT);
}

/* sqlite3_db_config for the integer on/off options (SQLITE_DBCONFIG_DEFENSIVE, ...). */
static inline int mw_sqlite3_db_config_flag(sqlite3 *db, int option, int on) {
    int result = -1;
    int rc = sqlite3_db_config(db, option, on, &result);
    return rc == SQLITE_OK ? result : -1;
}
#endif
