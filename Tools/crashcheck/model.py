"""Crash-state phase: what the disk may hold if power fails after a prefix of the events.

Two models of the file system:

posix (strict)
    A file's data writes and size changes since its last fsync/fdatasync may each be kept,
    dropped, or torn (only a prefix ending at a 512-byte sector boundary reached the disk;
    in the "garbage" variant the sectors after it hold random bytes instead of old data).
    Creating, deleting and renaming a name is durable only after an fsync of the directory;
    before that each pending namespace operation may independently be lost.

ordered (ext4 data=ordered-like)
    Data as above. Namespace operations persist as a prefix in program order, and an fsync
    of any file also makes every earlier namespace operation durable (one journal).

`Disk` replays events for one model, keeping what is durable and what is pending;
`Disk.crash_state` draws one on-disk state (name -> bytes) from the pending operations.
"""

import random

SECTOR = 512
MODELS = ("posix", "ordered")


class File:
    """One inode: the bytes known durable and the data operations since its last fsync."""

    def __init__(self, data=b""):
        self.durable = bytearray(data)
        self.pending = []     # ("write", offset, bytes) or ("truncate", size)

    def sync(self):
        for operation in self.pending:
            apply_data(self.durable, operation)
        self.pending = []


def apply_data(buffer, operation):
    """Applies one data operation to a bytearray in place."""
    if operation[0] == "truncate":
        size = operation[1]
        if size < len(buffer):
            del buffer[size:]
        else:
            buffer.extend(bytes(size - len(buffer)))
        return
    _, offset, data = operation
    end = offset + len(data)
    if len(buffer) < end:
        buffer.extend(bytes(end - len(buffer)))
    buffer[offset:end] = data


def apply_namespace(names, operation):
    """Applies one namespace operation to a name -> inode dict (a no-op where it cannot apply)."""
    kind = operation[0]
    if kind == "create":
        names[operation[1]] = operation[2]
    elif kind == "unlink":
        names.pop(operation[1], None)
    elif kind == "rename":
        if operation[1] in names:
            names[operation[2]] = names.pop(operation[1])


def tear(operation, rng, garbage):
    """A torn write: a sector-aligned prefix of it, the rest dropped or (garbage) random bytes.

    Returns None when the write spans no sector boundary (it cannot tear)."""
    _, offset, data = operation
    first = (offset // SECTOR + 1) * SECTOR
    boundaries = list(range(first, offset + len(data), SECTOR))
    if not boundaries:
        return None
    cut = rng.choice(boundaries) - offset
    if garbage:
        return ("write", offset, data[:cut] + rng.randbytes(len(data) - cut))
    return ("write", offset, data[:cut])


class Disk:
    """Replays events under one model, tracking durable and pending state."""

    def __init__(self, model, trace):
        if model not in MODELS:
            raise ValueError(f"unknown model {model}")
        self.model = model
        self.files = {}
        self.names = {}            # durable namespace: name -> inode
        self.pending_names = []    # namespace operations not yet durable
        for name, data in trace.initial.items():
            inode = trace.initial_inodes[name]
            self.files[inode] = File(data)
            self.names[name] = inode

    def apply(self, event):
        """Advances the replay by one event."""
        kind = event.kind
        if kind == "create":
            self.files[event.inode] = File()
            self.pending_names.append(("create", event.name, event.inode))
        elif kind == "unlink":
            self.pending_names.append(("unlink", event.name))
        elif kind == "rename":
            self.pending_names.append(("rename", event.name, event.name2))
        elif kind == "write":
            self.files[event.inode].pending.append(("write", event.offset, event.data))
        elif kind == "truncate":
            self.files[event.inode].pending.append(("truncate", event.size))
        elif kind == "fsync":
            self.files[event.inode].sync()
            if self.model == "ordered":
                self.sync_names()
        elif kind == "fsyncdir":
            self.sync_names()

    def sync_names(self):
        for operation in self.pending_names:
            apply_namespace(self.names, operation)
        self.pending_names = []

    def pending_count(self):
        """How many operations are not yet durable (0: only one possible state)."""
        return len(self.pending_names) + sum(len(f.pending) for f in self.files.values())

    def choose_names(self, mode, rng):
        """The namespace operations that reach the disk, per the model."""
        operations = self.pending_names
        if mode == "keep":
            return list(operations)
        if mode == "drop":
            return []
        if self.model == "ordered":
            return operations[: rng.randint(0, len(operations))]
        return [operation for operation in operations if rng.random() < 0.5]

    def choose_data(self, file, mode, rng):
        """The data operations of one file that reach the disk (some torn in random mode)."""
        if mode == "keep":
            return list(file.pending)
        if mode == "drop":
            return []
        chosen = []
        for operation in file.pending:
            roll = rng.random()
            if roll < 0.45:
                chosen.append(operation)
            elif roll < 0.75 or operation[0] == "truncate":
                continue
            else:
                torn = tear(operation, rng, garbage=roll >= 0.9)
                if torn is not None:
                    chosen.append(torn)
        return chosen

    def crash_state(self, mode, rng):
        """One possible disk after a crash now: {name: bytes}. mode: keep, drop or random."""
        names = dict(self.names)
        for operation in self.choose_names(mode, rng):
            apply_namespace(names, operation)
        state = {}
        for name, inode in sorted(names.items()):
            file = self.files[inode]
            data = bytearray(file.durable)
            for operation in self.choose_data(file, mode, rng):
                apply_data(data, operation)
            state[name] = bytes(data)
        return state


def final_state(trace):
    """The files as the program left them (every event applied): used to validate the parse."""
    disk = Disk("posix", trace)
    for event in trace.events:
        disk.apply(event)
    return disk.crash_state("keep", None)


def crash_points(events, limit, rng):
    """The event counts after which to crash: all of them, or a seeded sample of `limit`.

    A sample always keeps (as far as the limit allows) the points just after an
    acknowledgement, just after a namespace operation, and just before each fsync, where
    the most operations are pending."""
    every = list(range(len(events) + 1))
    if limit is None or len(every) <= limit:
        return every
    favoured = {0, len(events)}
    for index, event in enumerate(events):
        if event.kind in ("stdout", "create", "unlink", "rename"):
            favoured.add(index + 1)
        if event.kind in ("fsync", "fsyncdir"):
            favoured.add(index)
    others = [point for point in every if point not in favoured]
    favoured = sorted(favoured)
    if len(favoured) >= limit:
        return sorted(rng.sample(favoured, limit))
    return sorted(favoured + rng.sample(others, limit - len(favoured)))


def states_at_point(disk, count, rng):
    """The crash states drawn at one point: the two extremes, then `count` random ones."""
    if disk.pending_count() == 0:
        return [("durable", disk.crash_state("drop", rng))]
    states = [("drop", disk.crash_state("drop", rng)), ("keep", disk.crash_state("keep", rng))]
    for number in range(count):
        seed = rng.randrange(1 << 30)
        states.append((f"random:{seed}", disk.crash_state("random", random.Random(seed))))
    return states
