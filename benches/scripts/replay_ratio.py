#!/usr/bin/env python3
"""The replay against the raw scan (issue 41): `replay_memory replay` and
`replay_memory raw` run one after the other, in alternating order, ROUNDS times
each, each a whole process from a cold open; prints each one's wall time
(minimum, first quartile, median) and raw's time over the replay's at each.

On a shared machine a single pair moves by 10-20 %, so the figures are taken
over many rounds, and the minimum and the quartile (the runs least disturbed)
are printed beside the median.

    cargo build --release -p askuser-benches --example replay_memory
    python3 benches/scripts/replay_ratio.py                # quiet, 40 rounds
    python3 benches/scripts/replay_ratio.py --busy         # one core kept busy
    python3 benches/scripts/replay_ratio.py --rounds 20 --binary PATH

`--busy` keeps one core busy for the whole run with a process of its own (a
loop doing nothing, as `stress --cpu 1` does), stopped at the end.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default="target/release/examples/replay_memory",
                        help="the replay_memory example (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=40,
                        help="runs of each command (default: %(default)s)")
    parser.add_argument("--busy", action="store_true",
                        help="keep one core busy while measuring")
    args = parser.parse_args()
    if args.rounds < 4:
        parser.error("--rounds must be at least 4")
    return args


def run(command):
    """One whole process's wall time, in milliseconds; exits if it fails."""
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        sys.exit(f"replay_ratio: {' '.join(command)} failed: "
                 f"{done.stderr.decode(errors='replace').strip()}")
    return elapsed


def summary(times):
    """Minimum, first quartile and median of `times`."""
    ordered = sorted(times)
    return ordered[0], ordered[len(ordered) // 4], statistics.median(ordered)


def main():
    args = parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"replay_ratio: {args.binary} is not there to run: build it with "
                 "`cargo build --release -p askuser-benches --example replay_memory`, "
                 "or name it with --binary")
    raw_command = [args.binary, "raw"]
    replay_command = [args.binary, "replay"]
    # A first run builds the database if it is missing; another warms the cache.
    run(replay_command)
    run(raw_command)
    spinner = None
    if args.busy:
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    raw, replay = [], []
    try:
        for round_ in range(args.rounds):
            order = [(raw_command, raw), (replay_command, replay)]
            if round_ % 2:
                order.reverse()
            for command, times in order:
                times.append(run(command))
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
    raw_figures, replay_figures = summary(raw), summary(replay)
    condition = "one core busy" if args.busy else "quiet"
    print(f"{condition}, {args.rounds} rounds of each (ms: min / q1 / median)")
    print("raw scan  " + " / ".join(f"{t:.1f}" for t in raw_figures))
    print("replay    " + " / ".join(f"{t:.1f}" for t in replay_figures))
    ratios = [r / p for r, p in zip(raw_figures, replay_figures)]
    print("raw/replay " + " / ".join(f"{r:.3f}" for r in ratios))


if __name__ == "__main__":
    main()
