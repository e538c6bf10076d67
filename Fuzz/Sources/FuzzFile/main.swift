// libFuzzer target: the input is a database file image. The fuzzer reseals its checksums (so that mutations reach
// the page decoders), opens it in memory and reads and changes everything it can (see FileExercise).
//
// `FuzzFile --write-seeds DIR` writes the seed images (FileSeeds) to DIR instead of fuzzing.
import FuzzSupport

#if canImport(Glibc)
    import Glibc
#endif

if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "--write-seeds" {
    exit(FileSeeds.write(to: CommandLine.arguments[2]) ? 0 : 1)
}
exit(
    runFuzzer { data, count in
        FileExercise.run(inputBytes(data, count))
        return 0
    })
