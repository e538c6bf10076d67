"""Engines: how to run a workload's processes with the real binary, and how to check a state.

Both engines are driven through their shells with CSV output, so an acknowledgement reads
`ack,n` and a check prints `ok` (integrity) then one CSV row. The check of a crash state
opens it read-write with the same binary, exactly as a user would after the power came back.
"""

import csv
import io
import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass

from workloads import ABSENT


@dataclass(frozen=True)
class Observation:
    """What the binary reported for one materialised state."""
    row: tuple = ()          # the check query's row, ABSENT for "no such table"
    error: str = ""          # non-empty when opening, integrity or the query failed
    reopened: object = None  # after an error: the Observation of a second open


class Engine:
    """Common parts: running scripts and reading the check's output."""

    name = "engine"
    check_timeout = 120

    def shell_for(self, process, database, script_path):
        """The shell command of one workload process."""
        raise NotImplementedError

    def script_prefix(self):
        return ""

    def script_for(self, process):
        """The standard input of one workload process (None: it reads none); for a pair, its chunks as JSON."""
        if process[0] == "sql":
            return self.script_prefix() + process[1]
        if process[0] == "pair":
            return json.dumps(self.prefixed(process[1]))
        return None

    def prefixed(self, chunks):
        """A pair's chunks with each shell's first chunk preceded by the script prefix."""
        seen, result = set(), []
        for who, sql, ack in chunks:
            if who not in seen and who != "checkpoint":
                seen.add(who)
                sql = self.script_prefix() + sql
            result.append([who, sql, ack])
        return result

    def pair_command(self, shell_argv, checkpoint_argv, script_path):
        """Two shells `shell_argv` fed in turns by alternate.py from the chunks at `script_path`, and
        `checkpoint_argv` run where a chunk asks for a checkpoint."""
        driver = os.path.join(os.path.dirname(os.path.abspath(__file__)), "alternate.py")
        argv = [sys.executable, driver, script_path, json.dumps(shell_argv), json.dumps(checkpoint_argv)]
        return " ".join(shlex.quote(a) for a in argv)

    def check_command(self, database):
        raise NotImplementedError

    def setup(self, database, sql):
        """Runs setup SQL untraced (its result counts as durable)."""
        run = subprocess.run(self.check_command(database), input=(self.script_prefix() + sql).encode(),
                             capture_output=True)
        if run.returncode != 0:
            raise RuntimeError(f"setup failed: {run.stderr.decode(errors='replace')}")

    def check(self, database, query):
        """Opens the database, runs the integrity check and the query; returns an Observation."""
        script = "PRAGMA integrity_check;\n" + query + "\n"
        try:
            run = subprocess.run(self.check_command(database), input=script.encode(),
                                 capture_output=True, timeout=self.check_timeout)
        except subprocess.TimeoutExpired:
            return Observation(error="timed out")
        out = run.stdout.decode(errors="replace")
        err = run.stderr.decode(errors="replace").strip()
        rows = [tuple(row) for row in csv.reader(io.StringIO(out)) if row]
        if not rows:
            return Observation(error=f"exit {run.returncode}: {err or 'no output'}")
        if rows[0] != ("ok",):
            return Observation(error="integrity_check: " + " | ".join(",".join(r) for r in rows)[:500])
        if len(rows) == 1:
            if "no such table" in err:
                return Observation(row=ABSENT)
            return Observation(error=f"exit {run.returncode}: {err or 'no query result'}")
        if run.returncode != 0 or err:
            return Observation(error=f"exit {run.returncode}: {err}")
        return Observation(row=rows[1])


class GraniteEngine(Engine):
    """`granite sql --csv FILE` reading the script on standard input."""

    name = "granite"

    def __init__(self, binary):
        self.binary = binary

    def shell_for(self, process, database, script_path):
        if process[0] == "checkpoint":
            return f"{shlex.quote(self.binary)} checkpoint {shlex.quote(database)} >/dev/null"
        if process[0] == "pair":
            return self.pair_command([self.binary, "sql", "--csv", "--busy-timeout", "10", database],
                                     [self.binary, "checkpoint", "--mode", "truncate", database], script_path)
        return f"{shlex.quote(self.binary)} sql --csv {shlex.quote(database)} < {shlex.quote(script_path)}"

    def check_command(self, database):
        return [self.binary, "sql", "--csv", database]


class SQLiteEngine(Engine):
    """The `sqlite3` shell in WAL mode with synchronous=FULL or OFF (the control)."""

    name = "sqlite"

    def __init__(self, binary, sync):
        self.binary = binary
        self.sync = sync

    def script_prefix(self):
        return f"PRAGMA journal_mode=WAL;\nPRAGMA synchronous={self.sync.upper()};\n"

    def shell_for(self, process, database, script_path):
        if process[0] == "pair":
            return self.pair_command([self.binary, "-csv", "-bail", "-cmd", ".timeout 10000", database],
                                     [self.binary, "-cmd", ".timeout 10000", database,
                                      f"PRAGMA journal_mode=WAL; PRAGMA synchronous={self.sync.upper()};"
                                      " PRAGMA wal_checkpoint(TRUNCATE);"], script_path)
        if process[0] == "checkpoint":
            return (f"{shlex.quote(self.binary)} {shlex.quote(database)} "
                    f"< {shlex.quote(script_path)} >/dev/null")
        return f"{shlex.quote(self.binary)} -csv -bail {shlex.quote(database)} < {shlex.quote(script_path)}"

    def script_for(self, process):
        if process[0] == "checkpoint":
            return self.script_prefix() + "PRAGMA wal_checkpoint(TRUNCATE);\n"
        return super().script_for(process)

    def check_command(self, database):
        return [self.binary, "-csv", database]
