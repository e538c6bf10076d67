// C's `long double`, in which SQLite 3.40 converts between text and reals: Granite's conversions compute in it too,
// so that they round as SQLite's do (twice, through the 80-bit format, on x86).

#if arch(x86_64) || arch(i386)
    /// C's `long double` on this platform: the x87 80-bit format.
    typealias LongDouble = Float80
#else
    /// C's `long double` where it is no wider than `Double` (Apple platforms); wider formats are not reproduced.
    typealias LongDouble = Double
#endif
