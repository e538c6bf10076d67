"""Workloads: SQL scripts fed to the engine's shell, and the states their commits allow.

Every commit is followed by `SELECT 'ack', n;`, whose output line `ack,n` is the
acknowledgement: once it is on standard output, commit n must survive any crash. Each
workload has one check query whose result after n commits is known (`expected[n]`;
`expected[-1]` is "the table does not exist yet"); a crash state is consistent when the
query gives `expected[n]` for n = the last acknowledged commit or the one after it (which
may have committed before its acknowledgement was printed). Any other result means a lost
commit or a visible part of one that never committed.

A workload is a list of processes run one after the other: ("sql", script), ("checkpoint",),
or ("pair", chunks), two shells open on the database at once that take turns (alternate.py):
chunks is a list of (shell 0 or 1, script, the ack that ends it), or ("checkpoint", "", None) for a
checkpoint process run while both shells are open. `setup` runs before
recording, so its files count as durable.
"""

import random
from dataclasses import dataclass, field

ABSENT = ("absent",)


@dataclass
class Workload:
    name: str
    setup: str                     # SQL run untraced before the recording ("" for none)
    processes: list                # [("sql", script) | ("checkpoint",)]
    query: str                     # the check query (one result row)
    expected: dict                 # acks n -> expected row (tuple of strings); -1 -> ABSENT
    first_ack: int = -1            # the acknowledged commit before the recording starts
    notes: list = field(default_factory=list)


def ack(number):
    return f"SELECT 'ack', {number};\n"


def small_rows(group):
    """The three (id, group, value) rows inserted by small-transaction number `group`."""
    return [(group * 3 + k, group, group * 10 + k) for k in range(3)]


SMALL_TABLE = "CREATE TABLE t(id INTEGER PRIMARY KEY, grp INTEGER, v INTEGER);\n"
SMALL_QUERY = "SELECT count(*), coalesce(sum(v), 0), coalesce(max(grp), 0) FROM t;"


def small_transaction(group):
    inserts = "".join(f"INSERT INTO t VALUES({i}, {g}, {v});\n" for i, g, v in small_rows(group))
    return "BEGIN;\n" + inserts + "COMMIT;\n" + ack(group)


def small_expected(groups):
    """Expected (count, sum, max group) after each number of small transactions."""
    expected, count, total = {-1: ABSENT, 0: ("0", "0", "0")}, 0, 0
    for group in range(1, groups + 1):
        count += 3
        total += sum(v for _, _, v in small_rows(group))
        expected[group] = (str(count), str(total), str(group))
    return expected


def small(scale):
    """Small transactions on an existing table (created in the setup phase)."""
    groups = 8 * scale
    script = "".join(small_transaction(g) for g in range(1, groups + 1))
    return Workload("small", SMALL_TABLE, [("sql", script)], SMALL_QUERY,
                    small_expected(groups), first_ack=0)


def creation(scale):
    """A brand-new database file: the table is created and filled in the traced run."""
    script = SMALL_TABLE + ack(0) + small_transaction(1) + small_transaction(2)
    return Workload("create", "", [("sql", script)], SMALL_QUERY, small_expected(2))


def reopen(scale):
    """Process 1 commits and exits (its close checkpoints and removes the log); process 2
    opens the same file, creates a new log, commits and acknowledges."""
    groups = 3 * scale
    first = "".join(small_transaction(g) for g in range(1, groups + 1))
    second = "".join(small_transaction(g) for g in range(groups + 1, 2 * groups + 1))
    return Workload("reopen", SMALL_TABLE, [("sql", first), ("sql", second)], SMALL_QUERY,
                    small_expected(2 * groups), first_ack=0)


def pair(scale):
    """Two processes open on one file at once, committing in turns (each sees the other's commits through
    the shared index); half-way a third process checkpoints (TRUNCATE) while both are open; then both
    close, the last one removing the log."""
    groups = 6 * scale
    chunks = []
    for group in range(1, groups + 1):
        if group == groups // 2 + 1:
            chunks.append(("checkpoint", "", None))
        chunks.append(((group - 1) % 2, small_transaction(group), group))
    return Workload("pair", SMALL_TABLE, [("pair", chunks)], SMALL_QUERY, small_expected(groups), first_ack=0)


def text_of(rng, low, high):
    """A deterministic random text of low..high bytes (letters and digits)."""
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


BIG_QUERY = "SELECT count(*), coalesce(sum(id), 0), coalesce(sum(length(body)), 0) FROM big;"


class BigTable:
    """Builds transactions on big(id, body) and the expected state after each."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.rows = {}
        self.next_id = 1
        self.expected = {-1: ABSENT, 0: ("0", "0", "0")}

    def transaction(self, number, inserts, low, high, delete_every=None):
        lines = ["BEGIN;\n"]
        for _ in range(inserts):
            body = text_of(self.rng, low, high)
            lines.append(f"INSERT INTO big VALUES({self.next_id}, '{body}');\n")
            self.rows[self.next_id] = len(body)
            self.next_id += 1
        if delete_every and number % delete_every == 0:
            k = number % 5
            lines.append(f"DELETE FROM big WHERE id % 5 = {k};\n")
            self.rows = {i: n for i, n in self.rows.items() if i % 5 != k}
        lines.append("COMMIT;\n" + ack(number))
        self.expected[number] = (str(len(self.rows)), str(sum(self.rows)), str(sum(self.rows.values())))
        return "".join(lines)


BIG_TABLE = "CREATE TABLE big(id INTEGER PRIMARY KEY, body TEXT);\n"


def bigrows(scale, seed):
    """The reproducer of a known bug: a new file, transactions of four inserts of 5-20 KB
    texts, every third also deleting `id % 5 = k`: overflow pages, growth, freed pages."""
    table = BigTable(seed)
    script = BIG_TABLE + ack(0)
    script += "".join(table.transaction(n, 4, 5000, 20000, 3) for n in range(1, 6 * scale + 1))
    return Workload("bigrows", "", [("sql", script)], BIG_QUERY, table.expected)


def checkpoint(scale, seed, engine):
    """Enough frames for a checkpoint in the middle of a process (Granite's and SQLite's
    automatic checkpoint at 1000 frames), then a checkpoint process and a reopen."""
    table = BigTable(seed + 1)
    transactions = 26
    middle = transactions // 2
    first = ""
    for n in range(1, transactions + 1):
        first += table.transaction(n, 10, 14000, 16000)
        if n == middle and engine == "sqlite":
            first += "PRAGMA wal_checkpoint(TRUNCATE);\n"
    second = table.transaction(transactions + 1, 2, 5000, 9000, 1)
    return Workload("checkpoint", BIG_TABLE, [("sql", first), ("checkpoint",), ("sql", second)],
                    BIG_QUERY, table.expected, first_ack=0)


WORKLOADS = ("create", "small", "bigrows", "reopen", "checkpoint", "pair")


def build(name, scale, seed, engine):
    """The named workload at a scale (1: quick, 2: default)."""
    if name == "small":
        return small(scale)
    if name == "create":
        return creation(scale)
    if name == "reopen":
        return reopen(scale)
    if name == "bigrows":
        return bigrows(scale, seed)
    if name == "checkpoint":
        return checkpoint(scale, seed, engine)
    if name == "pair":
        return pair(scale)
    raise ValueError(f"unknown workload {name}")


def acceptable(workload, acked):
    """The rows a consistent state may show when commit `acked` was the last acknowledged."""
    allowed = [workload.expected[acked]]
    if acked + 1 in workload.expected:
        allowed.append(workload.expected[acked + 1])
    return allowed
