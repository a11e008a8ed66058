#ifndef DBB_CSQLITE_SHIM_H
#define DBB_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
