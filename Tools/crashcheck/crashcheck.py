#!/usr/bin/env python3
"""Black-box power-loss checker: records the real binary's file-system calls with strace,
rebuilds the disk states a crash could leave after every prefix of them, and opens each
with the same binary to verify it (see README.md).

Phases, per workload: record (trace.py) -> replay and draw crash states per model
(model.py) -> materialise each state in a scratch directory and check it (engines.py)
against the acknowledged commits (workloads.py) -> summary.
"""

import argparse
import hashlib
import os
import random
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

sys.dont_write_bytecode = True  # no __pycache__ beside the tool
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import model  # noqa: E402
import recording  # noqa: E402
import workloads  # noqa: E402
from engines import GraniteEngine, Observation, SQLiteEngine  # noqa: E402

DATABASE = "test.db"
ACK_RE = re.compile(r"^ack,(-?\d+)$")


@dataclass
class Settings:
    seed: int
    scale: int
    max_points: int
    states_per_point: int
    jobs: int
    keep_failures: str = ""
    details: int = 3


@dataclass
class Result:
    """The outcome for one engine, workload and model."""
    workload: str
    model: str
    events: int = 0
    points: int = 0
    states: int = 0
    distinct: int = 0
    failures: list = field(default_factory=list)
    seconds: float = 0.0


# ---------------------------------------------------------------- record phase

def record_workload(engine, workload, scratch):
    """Runs the workload's setup (untraced), then its processes under strace."""
    directory = os.path.join(scratch, "db")
    os.makedirs(directory)
    database = os.path.join(directory, DATABASE)
    if workload.setup:
        engine.setup(database, workload.setup)
    commands = []
    for index, process in enumerate(workload.processes):
        script_path = os.path.join(scratch, f"process{index}.sql")
        script = engine.script_for(process)
        with open(script_path, "w") as handle:
            handle.write(script or "")
        commands.append(engine.shell_for(process, database, script_path))
    recorded = recording.record(" && ".join(commands), directory, os.path.join(scratch, "strace.txt"))
    verify_replay(recorded, directory)
    acks = [int(m.group(1)) for line in recorded.stdout.splitlines() if (m := ACK_RE.match(line))]
    final = max(workload.expected)
    if not acks or acks[-1] != final:
        raise RuntimeError(f"{workload.name}: the run acknowledged {acks[-1:]} instead of {final}")
    if acknowledged(recorded.events, workload.first_ack)[-1] != final:
        raise RuntimeError(f"{workload.name}: the traced writes to standard output miss acknowledgements")
    return recorded


def verify_replay(recorded, directory):
    """Replaying every event must give the files the run left (else the parse missed a call).

    The -shm is skipped: it is written through mmap, which strace does not see."""
    replayed = {n: d for n, d in model.final_state(recorded).items() if not n.endswith("-shm")}
    actual = {n: d for n, d in recording.snapshot(directory).items() if not n.endswith("-shm")}
    if replayed != actual:
        differing = sorted(n for n in set(replayed) | set(actual) if replayed.get(n) != actual.get(n))
        raise RuntimeError(f"replaying the trace does not give the files on disk: {differing}")


def acknowledged(events, first_ack):
    """For each crash point p (after p events), the last commit acknowledged on stdout."""
    result, text, last = [first_ack], "", first_ack
    for event in events:
        if event.kind == "stdout":
            text += event.text
            *lines, text = text.split("\n")
            for line in lines:
                match = ACK_RE.match(line.strip())
                if match:
                    last = int(match.group(1))
        result.append(last)
    return result


# ---------------------------------------------------------------- check phase

def state_key(state):
    digest = hashlib.sha256()
    for name, data in sorted(state.items()):
        digest.update(name.encode() + b"\0" + len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def materialise(state, parent):
    """Writes a crash state's database files into a fresh directory (no -shm)."""
    directory = tempfile.mkdtemp(prefix="state-", dir=parent)
    for name, data in state.items():
        if name.endswith("-shm"):
            continue
        with open(os.path.join(directory, name), "wb") as handle:
            handle.write(data)
    return directory


def check_directory(engine, directory, query):
    """Checks one materialised state, then removes it.

    A state that fails is opened a second time, and what that shows is added to the
    error: an open that fails must not have changed the files (say, dropped the log)."""
    database = os.path.join(directory, DATABASE)
    try:
        first = engine.check(database, query)
        if not first.error:
            return first
        return Observation(error=first.error, reopened=engine.check(database, query))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def verdict(workload, observation, acked):
    """None when the observation is consistent with the acknowledgements, else the error."""
    if observation.error:
        return observation.error + reopened_note(workload, observation, acked)
    allowed = workloads.acceptable(workload, acked)
    if observation.row in allowed:
        return None
    earlier = [n for n, row in workload.expected.items() if row == observation.row]
    if earlier:
        return (f"shows commit {earlier[0]} but commit {acked} was acknowledged"
                if earlier[0] < acked else f"shows commit {earlier[0]}, only {acked} acknowledged")
    return f"state matches no commit: {observation.row}, expected one of {allowed}"


def reopened_note(workload, observation, acked):
    """What a second open of a state that failed to open showed (a failed open must not
    have changed the files)."""
    second = observation.reopened
    if second is None:
        return ""
    if second.error:
        return " || reopened: the same" if second.error == observation.error else f" || reopened: {second.error}"
    return f" || reopened: {verdict(workload, second, acked) or 'consistent'}"


def check_model(engine, workload, recorded, model_name, settings, scratch, pool, cache):
    """Replays the trace under one model and checks the crash states at the chosen points.

    `cache` maps a state's digest to the pending or finished check of it; it is shared by
    the models of one workload (an observation depends on the files only)."""
    started = time.time()
    result = Result(workload.name, model_name, events=len(recorded.events))
    rng = random.Random(f"{settings.seed}:{workload.name}:{model_name}")
    points = set(model.crash_points(recorded.events, settings.max_points, rng))
    acks = acknowledged(recorded.events, workload.first_ack)
    disk = model.Disk(model_name, recorded)
    seen, outstanding = set(), []

    def settle(limit):
        while len(outstanding) > limit:
            point, label, future, state = outstanding.pop(0)
            problem = verdict(workload, future.result(), acks[point])
            if problem:
                record_failure(result, recorded, point, label, acks[point], problem, settings, state)

    for point in range(len(recorded.events) + 1):
        if point > 0:
            disk.apply(recorded.events[point - 1])
        if point not in points:
            continue
        result.points += 1
        for label, state in model.states_at_point(disk, settings.states_per_point, rng):
            result.states += 1
            key = state_key(state)
            if key not in seen:
                seen.add(key)
                result.distinct += 1
            if key not in cache:
                directory = materialise(state, scratch)
                cache[key] = pool.submit(check_directory, engine, directory, workload.query)
            outstanding.append((point, label, cache[key], state if settings.keep_failures else None))
            settle(4 * settings.jobs)
    settle(0)
    result.seconds = time.time() - started
    return result


def record_failure(result, recorded, point, label, acked, problem, settings, state):
    """Keeps a failure (and, with --keep-failures, the first few failing states' files)."""
    event = recorded.events[point - 1].describe() if point > 0 else "start"
    failure = {"point": point, "event": event, "state": label, "acked": acked, "error": problem}
    if state is not None and len(result.failures) < settings.details:
        target = os.path.join(settings.keep_failures,
                              f"{result.workload}-{result.model}-{point}-{label.replace(':', '-')}")
        os.makedirs(target, exist_ok=True)
        for name, data in state.items():
            with open(os.path.join(target, name), "wb") as handle:
                handle.write(data)
        failure["kept"] = target
    result.failures.append(failure)


# ---------------------------------------------------------------- report phase

def one_line(text, limit=300):
    return " / ".join(text.split("\n"))[:limit]


def summarise(engine_label, results, settings, stream=sys.stdout):
    """Prints one line per workload and model, and the first failures of each."""
    print(f"\n{engine_label}: seed {settings.seed}", file=stream)
    header = f"{'workload':<11} {'model':<8} {'events':>6} {'points':>6} {'states':>6} " \
             f"{'distinct':>8} {'failures':>8} {'seconds':>7}"
    print(header, file=stream)
    for r in results:
        print(f"{r.workload:<11} {r.model:<8} {r.events:>6} {r.points:>6} {r.states:>6} "
              f"{r.distinct:>8} {len(r.failures):>8} {r.seconds:>7.1f}", file=stream)
    for r in results:
        if r.failures:
            print(f"{r.workload}/{r.model}: {len(r.failures)} failures", file=stream)
        for failure in r.failures[: settings.details]:
            print(f"  FAIL {r.workload}/{r.model} after event {failure['point']} ({failure['event']}), "
                  f"state {failure['state']}, acked {failure['acked']}: {one_line(failure['error'])}"
                  + (f" [kept in {failure['kept']}]" if "kept" in failure else ""), file=stream)
        kinds = {}
        for failure in r.failures:
            kind = re.sub(r"\d+", "N", one_line(failure["error"], 220))
            kinds[kind] = kinds.get(kind, 0) + 1
        for kind, count in sorted(kinds.items(), key=lambda item: -item[1]):
            print(f"    {count:>5} x {kind}", file=stream)
    total = sum(len(r.failures) for r in results)
    print(f"total: {sum(r.points for r in results)} crash points, {sum(r.states for r in results)} states "
          f"({sum(r.distinct for r in results)} distinct), {total} failures", file=stream)
    return total


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("granite", "sqlite"), default="granite")
    parser.add_argument("--binary", help="the granite binary (default .build/debug/granite)")
    parser.add_argument("--sqlite-binary", default="sqlite3")
    parser.add_argument("--sqlite-sync", choices=("full", "off"), default="full")
    parser.add_argument("--workloads", default=",".join(workloads.WORKLOADS))
    parser.add_argument("--models", default=",".join(model.MODELS))
    parser.add_argument("--quick", action="store_true", help="the small CI run (about a minute)")
    parser.add_argument("--seed", type=int, help="random seed (fixed to 1 when CI is set)")
    parser.add_argument("--states-per-point", type=int, help="random states per crash point")
    parser.add_argument("--max-points", type=int, help="crash points per workload and model")
    parser.add_argument("--jobs", type=int, default=2, help="checks run in parallel")
    parser.add_argument("--keep-failures", default="", help="copy the first failing states here")
    parser.add_argument("--details", type=int, default=3, help="failures shown per workload and model")
    parser.add_argument("--expect-failures", action="store_true",
                        help="invert the exit status (for the synchronous=OFF control)")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_arguments(argv)
    seed = args.seed if args.seed is not None else (1 if os.environ.get("CI") else random.randrange(1 << 31))
    settings = Settings(
        seed=seed, scale=1 if args.quick else 2,
        max_points=args.max_points or (80 if args.quick else 150),
        states_per_point=args.states_per_point if args.states_per_point is not None else (3 if args.quick else 4),
        jobs=args.jobs, keep_failures=args.keep_failures, details=args.details)
    if args.engine == "granite":
        binary = os.path.abspath(args.binary or os.path.join(os.getcwd(), ".build/debug/granite"))
        if not os.access(binary, os.X_OK):
            print(f"no granite binary at {binary}: run `swift build` or pass --binary", file=sys.stderr)
            return 2
        engine, label = GraniteEngine(binary), f"granite ({binary})"
    else:
        engine = SQLiteEngine(shutil.which(args.sqlite_binary) or args.sqlite_binary, args.sqlite_sync)
        label = f"sqlite3 WAL synchronous={args.sqlite_sync.upper()}"
    print(f"{label}; seed {seed}; {settings.max_points} points, {settings.states_per_point} random states "
          f"per point", flush=True)
    results = []
    scratch_parent = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    with ThreadPoolExecutor(max_workers=settings.jobs) as pool:
        for name in args.workloads.split(","):
            workload = workloads.build(name, settings.scale, seed, args.engine)
            with tempfile.TemporaryDirectory(prefix="crashcheck-", dir=scratch_parent) as scratch:
                started = time.time()
                try:
                    recorded = record_workload(engine, workload, scratch)
                except RuntimeError as error:
                    print(f"{name}: recording failed: {error}", file=sys.stderr)
                    return 2
                print(f"{name}: {len(recorded.events)} events recorded in {time.time() - started:.1f} s",
                      flush=True)
                cache = {}
                for model_name in args.models.split(","):
                    result = check_model(engine, workload, recorded, model_name, settings, scratch, pool, cache)
                    print(f"  {model_name}: {result.points} points, {result.states} states, "
                          f"{len(result.failures)} failures, {result.seconds:.1f} s", flush=True)
                    results.append(result)
    failures = summarise(label, results, settings)
    if args.expect_failures:
        print("expected failures: " + ("caught" if failures else "NOT CAUGHT"))
        return 0 if failures else 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
