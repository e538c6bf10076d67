#ifndef GRANITE_BENCH_CSQLITE_SHIM_H
#define GRANITE_BENCH_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
