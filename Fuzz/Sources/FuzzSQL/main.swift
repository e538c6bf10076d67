// libFuzzer target: the input is SQL text, run statement by statement against a fresh copy of a small database.
// Every statement must run or throw; afterwards the database must still pass the storage integrity check (a
// statement that leaves a damaged file is a bug even when it threw).
import FuzzSupport
import GraniteSQL
import GraniteStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Runs one input.
func runSQLInput(_ bytes: UnsafeRawBufferPointer) {
    let sql = String(decoding: bytes, as: UTF8.self)
    let db = SQLFuzzDatabase.open()
    db.runForFuzzing(sql)
    let report = db.engine.checkIntegrity()
    guard report.isOK else {
        fatalError("the SQL left a damaged database:\n" + report.problems.prefix(5).joined(separator: "\n"))
    }
}

_ = SQLFuzzDatabase.image
exit(
    runFuzzer { data, count in
        runSQLInput(inputBytes(data, count))
        return 0
    })
