#!/usr/bin/env python3
"""Times `askuser serve` recording N inputs (N/2 one-question asks, each answered
at once) and samples its resident memory as it goes.

    cargo build --release -p askuser-cli
    python3 benches/scripts/serve_inputs.py target/release/askuser 100000 [--db D]

Without --db, a new sled log in a temporary directory. A `postgres://` URL works
too (the stream is new each run). Prints the wall clock, the peak resident memory
(VmHWM) and the resident memory at each tenth of the run, so growth shows.
"""
import argparse
import json
import os
import subprocess
import tempfile
import threading
import time


def inputs(count):
    lines = []
    for i in range(count // 2):
        ask = {"type": "ask", "inquiry": f"t{i}", "dialect": "jp",
               "arguments": {"question": "Deploy now?", "answer_type": "boolean"}}
        answer = {"type": "answer", "inquiry": f"t{i}", "question": "answer", "value": True}
        lines.append(json.dumps(ask, separators=(",", ":")))
        lines.append(json.dumps(answer, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode()


def status(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("askuser")
    parser.add_argument("count", type=int)
    parser.add_argument("--db")
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="askuser-serve-bench-")
    db = args.db or os.path.join(scratch, "log")
    feed = os.path.join(scratch, "inputs.jsonl")
    with open(feed, "wb") as f:
        f.write(inputs(args.count))
    stream = f"bench-{os.getpid()}-{int(time.time())}"
    samples = []
    results = 0
    with open(feed, "rb") as stdin:
        started = time.monotonic()
        serve = subprocess.Popen([args.askuser, "serve", "--db", db, "--stream", stream],
                                 stdin=stdin, stdout=subprocess.PIPE)

        def sample():
            while serve.poll() is None:
                rss = status(serve.pid, "VmRSS")
                hwm = status(serve.pid, "VmHWM")
                if rss is not None:
                    samples.append((time.monotonic() - started, rss, hwm))
                time.sleep(0.1)

        sampler = threading.Thread(target=sample)
        sampler.start()
        for line in serve.stdout:
            if line.startswith(b'{"type":"result"'):
                results += 1
        serve.wait()
        elapsed = time.monotonic() - started
        sampler.join()
    peak = max((hwm or rss for _, rss, hwm in samples), default=0)
    print(f"{args.count} inputs ({results} results) in {elapsed:.2f} s "
          f"= {args.count / elapsed:,.0f} inputs/s; peak RSS {peak / 1024:.1f} MiB; exit {serve.returncode}")
    if samples:
        tenths = [samples[min(len(samples) - 1, len(samples) * k // 10)] for k in range(1, 11)]
        print("RSS at each tenth (MiB):", " ".join(f"{rss / 1024:.1f}" for _, rss, _ in tenths))
    subprocess.run(["rm", "-rf", scratch], check=False)


if __name__ == "__main__":
    main()
