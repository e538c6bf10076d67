// Hands control to libFuzzer. SwiftPM links an executable with `main` bound to the target's own entry point, so
// libFuzzer's `main` is never pulled in: the fuzzer's top-level code calls the driver instead.
import CLibFuzzer

/// The function libFuzzer calls with each input: its bytes and their count; returns 0 (or -1 to keep the input
/// out of the corpus).
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// Runs libFuzzer on the process's command line (corpus directories, `-max_total_time=`, …), calling `target` for
/// every input; returns the status libFuzzer ends with.
public func runFuzzer(_ target: FuzzTarget) -> Int32 {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    return LLVMFuzzerRunDriver(&argc, &argv, target)
}

/// The input bytes libFuzzer passed (an empty buffer for a null pointer).
public func inputBytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> UnsafeRawBufferPointer {
    guard let data, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: data, count: count)
}
