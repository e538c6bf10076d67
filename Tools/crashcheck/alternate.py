"""Runs two shells on one database at once and feeds them SQL in turns (the `pair` process of a workload).

    python3 alternate.py CHUNKS.json SHELL-ARGV-JSON CHECKPOINT-ARGV-JSON

CHUNKS.json is a list of [who, sql, ack]: chunk `sql` goes to shell `who` (0 or 1), and the next chunk
is sent only once that shell printed `ack,<ack>`, so the commits of the two processes alternate in a
known order while both keep the database open. A chunk whose `who` is "checkpoint" runs the checkpoint
command instead (a third process, while both shells are open) and waits for it. The acknowledgements in the trace are the shells' own
writes; this driver copies them to its standard output only once both shells have exited (for the
checker's summary of the run). Errors go to standard error and the exit status.
"""

import json
import subprocess
import sys


def main():
    with open(sys.argv[1]) as handle:
        chunks = json.load(handle)
    argv = json.loads(sys.argv[2])
    checkpoint = json.loads(sys.argv[3])
    shells = [subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(2)]
    acknowledged = []
    try:
        for who, sql, ack in chunks:
            if who == "checkpoint":
                run = subprocess.run(checkpoint, stdout=subprocess.DEVNULL)
                if run.returncode != 0:
                    sys.stderr.write(f"the checkpoint exited with {run.returncode}\n")
                    return 1
                continue
            shell = shells[who]
            shell.stdin.write(sql.encode())
            shell.stdin.flush()
            expected = f"ack,{ack}".encode()
            while True:
                line = shell.stdout.readline()
                if not line:
                    sys.stderr.write(f"shell {who} ended before acknowledging {ack}\n")
                    return 1
                if line.strip() == expected:
                    acknowledged.append(line)
                    break
    finally:
        for shell in shells:
            shell.stdin.close()
        for shell in shells:
            shell.stdout.read()
            shell.wait()
    failed = [shell.returncode for shell in shells if shell.returncode != 0]
    if failed:
        sys.stderr.write(f"a shell exited with {failed}\n")
        return 1
    sys.stdout.buffer.write(b"".join(acknowledged))
    return 0


if __name__ == "__main__":
    sys.exit(main())
