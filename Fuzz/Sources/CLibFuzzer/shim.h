// libFuzzer's entry point for programs that keep their own main (compiler-rt/lib/fuzzer/FuzzerInterface.h).
// The symbol comes from the fuzzer runtime that -sanitize=fuzzer links in.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
