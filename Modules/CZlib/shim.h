#ifndef DBB_CZLIB_SHIM_H
#define DBB_CZLIB_SHIM_H
#include <zlib.h>
#endif
