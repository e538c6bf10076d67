#ifndef GRANITE_CZLIB_SHIM_H
#define GRANITE_CZLIB_SHIM_H
#include <zlib.h>
#endif
