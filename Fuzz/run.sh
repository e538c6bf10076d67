#!/usr/bin/env bash
# Builds the two libFuzzer fuzzers (release, -sanitize=fuzzer,address) and runs each for SECONDS seconds
# (default 60): FuzzSQL (SQL text against a small in-memory database) and FuzzFile (damaged database images).
#
#   Fuzz/run.sh [SECONDS]
#
# The committed seeds (Fuzz/Corpus/sql, Fuzz/Corpus/file) are read, never written: what the fuzzers learn goes to a
# working corpus in Fuzz/.build-fuzz/corpus, kept between runs. A crash leaves its input in
# Fuzz/.build-fuzz/artifacts and makes the script fail; replay one with `FUZZER ARTIFACT` (the fuzzer binary runs a
# single input when given a file instead of a directory).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
seconds="${1:-60}"
scratch="$here/.build-fuzz"
mkdir -p "$scratch"

# Link with the toolchain's lld: the system's gold stops with an internal error on the sanitized objects'
# debug information. SwiftPM drops -use-ld from -Xswiftc; a toolset file is its way to choose the linker.
toolchain_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
printf '{ "schemaVersion": "1.0", "linker": { "path": "%s/ld.lld" } }\n' "$toolchain_bin" >"$scratch/toolset.json"
build=(swift build -c release --package-path "$here" --scratch-path "$scratch" --toolset "$scratch/toolset.json"
    -Xswiftc -sanitize=fuzzer,address)

"${build[@]}"
bin="$("${build[@]}" --show-bin-path)"
mkdir -p "$scratch/corpus/sql" "$scratch/corpus/file" "$scratch/artifacts"

# The Swift backtracer can hang in a process that libFuzzer or ASan is already reporting on.
export SWIFT_BACKTRACE=enable=no
# Leak reports would stop the run on the runtime's deliberately immortal caches; ASan's other checks stay on.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"

# Under CI a fixed seed, so that a run that lands is a run anyone can repeat.
seed_option=()
[ -n "${CI:-}" ] && seed_option=(-seed=1)

status=0
run() {
    local name="$1" corpus="$2" max_len="$3"
    shift 3
    echo "== $name for ${seconds}s"
    if ! "$bin/$name" "$scratch/corpus/$corpus" "$here/Corpus/$corpus" \
        -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len="$max_len" -timeout=20 \
        -print_final_stats=1 -artifact_prefix="$scratch/artifacts/$corpus-" ${seed_option[@]+"${seed_option[@]}"} "$@" \
        2>"$scratch/$name.log"; then
        status=1
        echo "!! $name found a problem; the end of its log ($scratch/$name.log):"
        tail -n 60 "$scratch/$name.log"
    fi
    # The last status line (coverage, corpus, executions per second) and the totals.
    grep -E '^#[0-9]+' "$scratch/$name.log" | tail -n 1 || true
    grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$scratch/$name.log" || true
    echo "working corpus: $(find "$scratch/corpus/$corpus" -type f | wc -l) inputs"
}

run FuzzSQL sql 4096 -dict="$here/sql.dict"
run FuzzFile file 65536
exit "$status"
