/// The failures of the checks SQLite makes of a statement only once it has resolved all its names (while it plans
/// the statement's queries), kept until the outermost query being compiled is done, so that a name error anywhere
/// in the statement is reported first, as in SQLite.
///
/// Shared by a compiler and the compilers it makes for the statement's views (a class, so that copies of
/// ``SelectCompiler`` share it).
final class DeferredCompileChecks {
    /// How many query compilations are under way, the outermost included.
    private var depth = 0
    /// The first failure recorded during the outermost compilation.
    private var failure: SQLExecutionError?

    /// Records a failure of a deferred check; the first recorded is the one reported.
    func record(_ error: SQLExecutionError) {
        if failure == nil { failure = error }
    }

    /// Runs `body`, the compilation of a query: the outermost one fails with the first recorded failure once
    /// `body` has succeeded (a failure of `body` wins), and ends with nothing recorded either way.
    func compiling<T>(_ body: () throws -> T) throws -> T {
        depth += 1
        defer {
            depth -= 1
            if depth == 0 { failure = nil }
        }
        let result = try body()
        if depth == 1, let failure { throw failure }
        return result
    }
}
