#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The words the C library gives a system error code (`Permission denied` for `EACCES`), so that a failed open
/// or write names its cause instead of a number a user must look up.
enum SystemErrorText {
    /// The C library's description of `code`, or `error N` for a code it does not know.
    ///
    /// `strerror` returns a string owned by the library (per thread for unknown codes in current C libraries);
    /// it is copied at once.
    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        let words = String(cString: text)
        return words.isEmpty ? "error \(code)" : words
    }
}
