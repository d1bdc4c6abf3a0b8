#!/usr/bin/env python3
"""The database's own floor under `many_agents.py --db`: PostgreSQL alone doing
what one inquiry of `askuser serve` makes it do (two appends through askuser's
own `append_blocks`, each its own transaction committed durably: the request,
then the answer with its result handed over, two events in one record), for N
clients at once in lockstep, driven by `pgbench`,
with no askuser process at all. Prints inquiries per second, the median and
the 99th percentile of one inquiry, as `many_agents.py` does, so that the two
can be run in turn and compared: what the database alone gives on this machine
is as good as any client of it can get.

    python3 benches/scripts/pg_floor.py --db "$(scripts/postgres.sh url)" --clients 32 --seconds 6

It works in a schema of its own (`askuser_floor`, made afresh each run, with
the tables and function of the database's `askuser` schema copied by
`LIKE ... INCLUDING ALL` and `pg_get_functiondef`), so the log's own streams
are never touched; the database must hold an askuser log (any `askuser` command
with `--db` makes one). The request's record is 161 bytes and the answer's (two
events) 98, the means of what 32 agents of `many_agents.py` record.
"""
import argparse
import glob
import os
import statistics
import subprocess
import tempfile

SCHEMA = "askuser_floor"

# One inquiry: the request appended, then the answer and its result handed
# over, two events in one append, each taking the head the last returned. `:h`
# starts at 0 for every client (`-D h=0`) and is carried from one inquiry to
# the next.
INQUIRY = f"""\\set at 1800000000000
SELECT head AS h FROM {SCHEMA}.append_blocks('floor-' || :client_id, :h, :h + 1, ARRAY[:h + 1]::bigint[], ARRAY[convert_to(repeat('r', 161), 'UTF8')], :at, true) \\gset
SELECT head AS h FROM {SCHEMA}.append_blocks('floor-' || :client_id, :h, :h + 2, ARRAY[:h + 1]::bigint[], ARRAY[convert_to(repeat('a', 98), 'UTF8')], :at, true) \\gset
"""


def tool(name):
    """A PostgreSQL program: on PATH, else Debian's newest versioned one."""
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if os.access(os.path.join(directory, name), os.X_OK):
            return os.path.join(directory, name)
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                   key=lambda path: int(path.split("/")[4]))
    if not found:
        raise SystemExit(f"pg_floor: {name} not found (apt-get install postgresql)")
    return found[-1]


def psql(db, sql):
    return subprocess.run([tool("psql"), db, "-v", "ON_ERROR_STOP=1", "-qtAc", sql],
                          check=True, capture_output=True, text=True).stdout


def make_schema(db, clients):
    function = psql(db, "SELECT pg_get_functiondef('askuser.append_blocks'::regproc)")
    function = function.replace('"askuser".', f"{SCHEMA}.").replace("askuser.append_blocks",
                                                                     f"{SCHEMA}.append_blocks")
    psql(db, f"""DROP SCHEMA IF EXISTS {SCHEMA} CASCADE; CREATE SCHEMA {SCHEMA};
        CREATE TABLE {SCHEMA}.streams (LIKE askuser.streams INCLUDING ALL);
        CREATE TABLE {SCHEMA}.events (LIKE askuser.events INCLUDING ALL);
        CREATE UNLOGGED TABLE {SCHEMA}.watchers (LIKE askuser.watchers INCLUDING ALL);""")
    psql(db, function)
    # Each client's stream exists from the start, as an agent's does once it
    # has attached.
    psql(db, f"INSERT INTO {SCHEMA}.streams (name, head, created_at) "
             f"SELECT 'floor-' || n, 0, 0 FROM generate_series(0, {clients - 1}) AS n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True, help="the postgres:// URL of a database "
                        "that holds an askuser log")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=int, default=6)
    args = parser.parse_args()
    make_schema(args.db, args.clients)
    with tempfile.TemporaryDirectory(prefix="askuser-pg-floor-") as scratch:
        script = os.path.join(scratch, "inquiry.sql")
        with open(script, "w") as out:
            out.write(INQUIRY)
        subprocess.run([tool("pgbench"), "-n", "-f", script, "-D", "h=0",
                        "-c", str(args.clients), "-j", str(min(args.clients, 2)),
                        "-T", str(args.seconds), "-l", args.db],
                       check=True, cwd=scratch, capture_output=True, text=True)
        latencies = []
        for name in glob.glob(os.path.join(scratch, "pgbench_log.*")):
            with open(name) as log:
                # client, transaction, latency in microseconds, ...
                latencies += [int(line.split()[2]) / 1000 for line in log]
    psql(args.db, f"DROP SCHEMA {SCHEMA} CASCADE")
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    median = statistics.median(ordered)
    print(f"database alone, clients {args.clients}, inquiries {len(ordered)}, "
          f"{args.seconds} s: {len(ordered) / args.seconds:.0f} inquiries/s, "
          f"p50 {median:.1f} ms, p99 {p99:.1f} ms ({p99 / median:.2f}x)")


if __name__ == "__main__":
    main()
