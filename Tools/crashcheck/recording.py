"""Recording phase: run a workload under strace and turn its system calls into events.

The trace is taken with `strace -f -xx -y`, so every string (buffers and paths, including
the `<path>` annotations `-y` adds to file descriptors) is printed as `\\xNN` hex, which
makes the lines easy to split and binary page images exact.

Only files directly inside the database directory matter. Events:

    Event("create", name=N, inode=I)        openat(O_CREAT) of a name that did not exist
    Event("unlink", name=N)                 unlink/unlinkat
    Event("rename", name=OLD, name2=NEW)    rename/renameat/renameat2
    Event("write", inode=I, offset=O, data=B)
    Event("truncate", inode=I, size=S)      ftruncate/truncate, O_TRUNC
    Event("fsync", inode=I)                 fsync/fdatasync/sync_file_range on a file
    Event("fsyncdir")                       fsync/fdatasync on the directory itself
    Event("stdout", text=T)                 a write to file descriptor 1 (the acknowledgements)

Files are tracked as inodes (numbers) so that writes through a descriptor whose name was
unlinked or renamed land on the right data. Each process has its descriptor table: a child
made by fork gets a copy of its parent's (the entries, and so the offsets, shared), a thread
(clone with CLONE_FILES) the same table, so that two processes open on one database at once
(the `pair` workload) keep their descriptors apart. The events of all processes form one
sequence in the order strace saw the calls complete.
"""

import os
import re
import subprocess
from dataclasses import dataclass, field

SYSCALLS = (
    "openat,open,creat,close,pwrite64,write,pwritev,pwritev2,writev,ftruncate,truncate,"
    "fsync,fdatasync,sync_file_range,unlink,unlinkat,rename,renameat,renameat2,"
    "lseek,dup,dup2,dup3,fcntl,clone,clone3,fork,vfork"
)

HEX = r"(?:\\x[0-9a-f]{2})*"
STRING_RE = re.compile(r'"(' + HEX + r')"(\.\.\.)?')
FD_RE = re.compile(r"^(-?\d+|AT_FDCWD)(?:<(" + HEX + r")>)?")
LINE_RE = re.compile(r"^(\d+)\s+(.*)$")
CALL_RE = re.compile(r"^(\w+)\((.*)\) += (-?\d+|\?)(.*)$", re.S)
RESUMED_RE = re.compile(r"^<\.\.\. (\w+) resumed>(.*)$", re.S)

O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND = 0o1, 0o2, 0o100, 0o1000, 0o2000


@dataclass
class Event:
    """One file-system effect of the workload, in program order."""
    kind: str
    inode: int = -1
    name: str = ""
    name2: str = ""
    offset: int = 0
    data: bytes = b""
    size: int = 0
    text: str = ""
    line: int = 0

    def describe(self):
        """A short human-readable form for failure reports."""
        if self.kind == "write":
            return f"write(inode {self.inode}, offset {self.offset}, {len(self.data)} bytes)"
        if self.kind == "truncate":
            return f"truncate(inode {self.inode}, {self.size})"
        if self.kind == "fsync":
            return f"fsync(inode {self.inode})"
        if self.kind == "stdout":
            return f"stdout({self.text.strip()!r})"
        if self.kind == "rename":
            return f"rename({self.name} -> {self.name2})"
        if self.kind == "fsyncdir":
            return "fsync(directory)"
        return f"{self.kind}({self.name})"


@dataclass
class Trace:
    """The recorded run: the durable starting files and the events that followed."""
    initial: dict            # name -> bytes, the files present (and durable) before the run
    initial_inodes: dict     # name -> inode number of those files
    events: list = field(default_factory=list)
    stdout: str = ""
    returncode: int = 0


def unhex(text):
    """Decodes strace's `-xx` form (`\\x41\\x42`) into bytes."""
    return bytes.fromhex(text.replace("\\x", ""))


def split_args(text):
    """Splits a system call's argument list at top-level commas."""
    args, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "[{(":
            depth += 1
        elif char in "]})":
            depth -= 1
        elif char == "," and depth == 0:
            args.append(text[start:index].strip())
            start = index + 1
    if text.strip():
        args.append(text[start:].strip())
    return args


def parse_string(arg):
    """The bytes of a quoted `-xx` string argument; refuses truncated buffers."""
    match = STRING_RE.search(arg)
    if match is None:
        raise ValueError(f"not a string argument: {arg[:80]}")
    if match.group(2):
        raise ValueError("strace truncated a buffer: raise -s")
    return unhex(match.group(1))


def parse_fd(arg):
    """(fd number or None for AT_FDCWD, annotated path or None) of a descriptor argument."""
    match = FD_RE.match(arg)
    if match is None:
        raise ValueError(f"not a descriptor: {arg[:80]}")
    number = None if match.group(1) == "AT_FDCWD" else int(match.group(1))
    path = unhex(match.group(2)).decode(errors="replace") if match.group(2) is not None else None
    return number, path


def flag_bits(text):
    """The numeric value of an `O_RDWR|O_CREAT|...` flag argument (only the bits we use)."""
    names = {"O_WRONLY": O_WRONLY, "O_RDWR": O_RDWR, "O_CREAT": O_CREAT,
             "O_TRUNC": O_TRUNC, "O_APPEND": O_APPEND}
    return sum(names.get(part, 0) for part in text.split("|"))


def join_lines(raw_lines):
    """Yields (line number, pid, call text), stitching `<unfinished ...>` / `resumed` pairs."""
    pending = {}
    for number, raw in enumerate(raw_lines, 1):
        match = LINE_RE.match(raw.rstrip("\n"))
        if match is None:
            continue
        pid, rest = match.group(1), match.group(2)
        if rest.startswith(("+++", "---")):
            continue
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest[: -len("<unfinished ...>")].rstrip()
            continue
        resumed = RESUMED_RE.match(rest)
        if resumed:
            head = pending.pop(pid, None)
            if head is None:
                continue
            rest = head + resumed.group(2)
        yield number, pid, rest


class TraceParser:
    """Turns strace lines into events for one database directory."""

    def __init__(self, directory, initial):
        self.directory = os.path.realpath(directory)
        self.names = {}          # name -> inode (the namespace as the program sees it)
        self.sizes = {}          # inode -> size (for O_APPEND)
        self.tables = {}         # pid -> its descriptor table: fd -> ["file", inode, offset] or ["dir"]
        self.fds = {}            # the table of the process whose call is being handled
        self.next_inode = 0
        self.events = []
        self.initial_inodes = {}
        for name, data in initial.items():
            inode = self.new_inode()
            self.names[name] = inode
            self.sizes[inode] = len(data)
            self.initial_inodes[name] = inode

    def new_inode(self):
        self.next_inode += 1
        return self.next_inode

    def local_name(self, path, dirfd_path=None):
        """The file name if `path` is directly inside the database directory, "." for the directory."""
        if path is None:
            return None
        if not os.path.isabs(path):
            path = os.path.join(dirfd_path or os.getcwd(), path)
        path = os.path.normpath(path)
        if path == self.directory:
            return "."
        if os.path.dirname(path) == self.directory:
            return os.path.basename(path)
        return None

    def emit(self, line, kind, **values):
        self.events.append(Event(kind, line=line, **values))

    def file_fd(self, arg):
        """The descriptor table entry of a file argument inside the directory, else None."""
        number, _ = parse_fd(arg)
        entry = self.fds.get(number)
        return entry if entry and entry[0] == "file" else None

    def handle(self, line, name, args, ret, annotation, pid=None):
        """Applies one successful system call of process `pid`."""
        self.fds = self.tables.setdefault(pid, {})
        handler = getattr(self, "on_" + name, None)
        if handler is not None:
            handler(line, split_args(args), ret, annotation)

    def on_openat(self, line, args, ret, annotation, path_index=1, flags_index=2):
        dirfd_path = parse_fd(args[0])[1] if path_index == 1 else None
        path = unhex(STRING_RE.search(args[path_index]).group(1)).decode(errors="replace")
        ann = FD_RE.match(f"{ret}{annotation.strip()}")
        if ann and ann.group(2) is not None:
            path = unhex(ann.group(2)).decode(errors="replace")
        name = self.local_name(path, dirfd_path)
        flags = flag_bits(args[flags_index]) if flags_index is not None else O_CREAT | O_WRONLY | O_TRUNC
        if name is None:
            self.fds.pop(ret, None)
            return
        if name == ".":
            self.fds[ret] = ["dir"]
            return
        inode = self.names.get(name)
        if inode is None:
            inode = self.new_inode()
            self.names[name] = inode
            self.sizes[inode] = 0
            self.emit(line, "create", name=name, inode=inode)
        elif flags & O_TRUNC and flags & (O_WRONLY | O_RDWR):
            self.sizes[inode] = 0
            self.emit(line, "truncate", inode=inode, size=0)
        self.fds[ret] = ["file", inode, self.sizes[inode] if flags & O_APPEND else 0]

    def on_open(self, line, args, ret, annotation):
        self.on_openat(line, ["AT_FDCWD"] + args, ret, annotation)

    def on_creat(self, line, args, ret, annotation):
        self.on_openat(line, ["AT_FDCWD"] + args, ret, annotation, flags_index=None)

    def on_close(self, line, args, ret, annotation):
        self.fds.pop(parse_fd(args[0])[0], None)

    def on_dup(self, line, args, ret, annotation):
        entry = self.fds.get(parse_fd(args[0])[0])
        if entry is not None:
            self.fds[ret] = entry          # shares the open file description (and offset)
        else:
            self.fds.pop(ret, None)

    on_dup2 = on_dup
    on_dup3 = on_dup

    def on_fcntl(self, line, args, ret, annotation):
        if len(args) > 1 and args[1].startswith("F_DUPFD"):
            self.on_dup(line, args, ret, annotation)

    def on_clone(self, line, args, ret, annotation):
        """A new process copies the descriptor table (its entries shared); a thread shares the table."""
        threads = "CLONE_FILES" in ",".join(args)
        child = str(ret)
        early = self.tables.get(child, {})   # calls of the child that strace printed before the clone's return
        table = self.fds if threads else dict(self.fds)
        table.update(early)
        self.tables[child] = table

    on_clone3 = on_clone
    on_fork = on_clone
    on_vfork = on_clone

    def record_write(self, line, entry, offset, data):
        inode = entry[1]
        self.emit(line, "write", inode=inode, offset=offset, data=data)
        self.sizes[inode] = max(self.sizes[inode], offset + len(data))

    def on_write(self, line, args, ret, annotation, vectored=False):
        number, _ = parse_fd(args[0])
        data = self.vector(args[1]) if vectored else parse_string(args[1])
        data = data[:ret]
        if number == 1:
            self.emit(line, "stdout", text=data.decode(errors="replace"))
            return
        entry = self.file_fd(args[0])
        if entry is not None:
            self.record_write(line, entry, entry[2], data)
            entry[2] += len(data)

    def on_writev(self, line, args, ret, annotation):
        self.on_write(line, args, ret, annotation, vectored=True)

    def vector(self, arg):
        """The concatenated buffers of an iovec array argument."""
        return b"".join(parse_string(part) for part in re.findall(r'iov_base="[^"]*"(?:\.\.\.)?', arg))

    def on_pwrite64(self, line, args, ret, annotation, vectored=False):
        entry = self.file_fd(args[0])
        if entry is None:
            return
        data = self.vector(args[1]) if vectored else parse_string(args[1])
        self.record_write(line, entry, int(args[3]), data[:ret])

    def on_pwritev(self, line, args, ret, annotation):
        self.on_pwrite64(line, args, ret, annotation, vectored=True)

    on_pwritev2 = on_pwritev

    def on_lseek(self, line, args, ret, annotation):
        entry = self.file_fd(args[0])
        if entry is not None:
            entry[2] = ret

    def on_ftruncate(self, line, args, ret, annotation):
        entry = self.file_fd(args[0])
        if entry is not None:
            self.sizes[entry[1]] = int(args[1])
            self.emit(line, "truncate", inode=entry[1], size=int(args[1]))

    def on_truncate(self, line, args, ret, annotation):
        name = self.local_name(parse_string(args[0]).decode(errors="replace"))
        if name in self.names:
            inode = self.names[name]
            self.sizes[inode] = int(args[1])
            self.emit(line, "truncate", inode=inode, size=int(args[1]))

    def on_fsync(self, line, args, ret, annotation):
        entry = self.fds.get(parse_fd(args[0])[0])
        if entry is None:
            return
        if entry[0] == "dir":
            self.emit(line, "fsyncdir")
        else:
            self.emit(line, "fsync", inode=entry[1])

    on_fdatasync = on_fsync
    on_sync_file_range = None   # not a durability barrier: ignored (handler below is None-safe)

    def on_unlinkat(self, line, args, ret, annotation, dir_index=0, path_index=1):
        dirfd_path = parse_fd(args[dir_index])[1] if dir_index is not None else None
        name = self.local_name(parse_string(args[path_index]).decode(errors="replace"), dirfd_path)
        if name not in (None, ".") and name in self.names:
            del self.names[name]
            self.emit(line, "unlink", name=name)

    def on_unlink(self, line, args, ret, annotation):
        self.on_unlinkat(line, args, ret, annotation, dir_index=None, path_index=0)

    def on_renameat(self, line, args, ret, annotation, plain=False):
        if plain:
            old_dir, old, new_dir, new = None, args[0], None, args[1]
        else:
            old_dir, old, new_dir, new = parse_fd(args[0])[1], args[1], parse_fd(args[2])[1], args[3]
        source = self.local_name(parse_string(old).decode(errors="replace"), old_dir)
        target = self.local_name(parse_string(new).decode(errors="replace"), new_dir)
        if source is None and target is None:
            return
        if source is None or target is None:
            raise ValueError(f"line {line}: rename across the database directory is not modelled")
        if source in self.names:
            self.names[target] = self.names.pop(source)
            self.emit(line, "rename", name=source, name2=target)

    def on_rename(self, line, args, ret, annotation):
        self.on_renameat(line, args, ret, annotation, plain=True)

    on_renameat2 = on_renameat


def parse_trace(text_lines, directory, initial):
    """Parses strace output lines into a Trace for `directory`, which held `initial` before."""
    parser = TraceParser(directory, initial)
    for number, pid, call in join_lines(text_lines):
        match = CALL_RE.match(call)
        if match is None:
            continue
        name, args, ret, annotation = match.groups()
        if ret == "?" or int(ret) < 0 or getattr(parser, "on_" + name, None) is None:
            continue
        parser.handle(number, name, args, int(ret), annotation, pid)
    return Trace(initial=initial, initial_inodes=parser.initial_inodes, events=parser.events)


def snapshot(directory):
    """The files directly in `directory` with their contents."""
    files = {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                files[name] = handle.read()
    return files


def record(shell_command, directory, trace_path, strace="strace"):
    """Runs `shell_command` under strace (files in `directory` so far count as durable)."""
    initial = snapshot(directory)
    argv = [strace, "-f", "-qq", "-xx", "-y", "-s", "67108864", "-o", trace_path,
            "-e", "trace=" + SYSCALLS, "-e", "signal=none", "--", "sh", "-c", shell_command]
    try:
        run = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True)
    except FileNotFoundError:
        raise RuntimeError(f"{strace} not found: install it (apt-get install -y strace)") from None
    if not os.path.exists(trace_path):
        raise RuntimeError(f"strace wrote no trace: {run.stderr.decode(errors='replace')[-2000:]}")
    with open(trace_path, encoding="latin-1") as handle:
        trace = parse_trace(handle, directory, initial)
    trace.stdout = run.stdout.decode(errors="replace")
    trace.returncode = run.returncode
    if run.returncode != 0:
        raise RuntimeError(f"traced workload failed ({run.returncode}): "
                           f"{run.stderr.decode(errors='replace')[-2000:]}")
    return trace
