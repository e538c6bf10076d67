#include <sqlite3.h>

/// Switches SQLite's query-planner optimizations off (`disabled` = all ones) or back on (`disabled` = 0), as the
/// sqlite3 shell's `.testctrl optimizations` does: differential tests re-run a query unoptimized to tell an
/// optimizer bug of the oracle from a Granite bug. (`sqlite3_test_control` is variadic, so Swift cannot call it.)
static inline int granite_oracle_disable_optimizations(sqlite3 *db, unsigned int disabled) {
    return sqlite3_test_control(SQLITE_TESTCTRL_OPTIMIZATIONS, db, disabled);
}
