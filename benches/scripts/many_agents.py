#!/usr/bin/env python3
"""Many agents on one log: N `askuser serve` processes, each on its own stream of
one shared log, asking a one-question inquiry and answering it in lockstep (ask,
read the prompt, answer, read the result, then the next), all at once. Prints the
inquiries per second of all agents together and the latency of one inquiry (ask
written to result read): median and 99th percentile.

    cargo build --release -p askuser-cli
    python3 benches/scripts/many_agents.py target/release/askuser --agents 1 --inquiries 1600
    python3 benches/scripts/many_agents.py target/release/askuser --agents 32 --inquiries 1600
    python3 benches/scripts/many_agents.py target/release/askuser --agents 32 --db "$ASKUSER_TEST_PG"

Without --db, a new sled log in a temporary directory (the first serve owns it and
serves the others through its socket). A `postgres://` URL works too: each run
uses new stream names. The inquiries are shared out evenly; every agent is
started and has sent its ready line before the clock starts.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import threading
import time


def line(value):
    return (json.dumps(value, separators=(",", ":")) + "\n").encode()


class Agent:
    """One `askuser serve` on its own stream, driven over its stdin and stdout."""

    def __init__(self, askuser, db, stream):
        self.process = subprocess.Popen(
            [askuser, "serve", "--db", db, "--stream", stream],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.latencies = []
        ready = self.read()
        assert ready["type"] == "ready", ready

    def read(self):
        raw = self.process.stdout.readline()
        if not raw:
            raise RuntimeError("askuser serve closed its output")
        return json.loads(raw)

    def send(self, value):
        self.process.stdin.write(line(value))
        self.process.stdin.flush()

    def run(self, count, start):
        start.wait()
        for i in range(count):
            inquiry = f"q{i}"
            began = time.monotonic()
            self.send({"type": "ask", "inquiry": inquiry, "dialect": "jp",
                       "arguments": {"question": "Deploy now?", "answer_type": "boolean"}})
            prompt = self.read()
            assert prompt["type"] == "prompt", prompt
            self.send({"type": "answer", "inquiry": inquiry, "question": "answer",
                       "value": True, "step": prompt["step"]})
            while True:
                result = self.read()
                if result["type"] == "result" and result["inquiry"] == inquiry:
                    break
            self.latencies.append(time.monotonic() - began)

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("askuser")
    parser.add_argument("--agents", type=int, default=1)
    parser.add_argument("--inquiries", type=int, default=1600)
    parser.add_argument("--db")
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="askuser-many-agents-")
    db = args.db or os.path.join(scratch, "log")
    run = f"{os.getpid()}-{int(time.time())}"
    agents = [Agent(args.askuser, db, f"agent-{run}-{n}") for n in range(args.agents)]
    each = args.inquiries // args.agents
    start = threading.Event()
    threads = [threading.Thread(target=agent.run, args=(each, start)) for agent in agents]
    for thread in threads:
        thread.start()
    began = time.monotonic()
    start.set()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    for agent in agents:
        agent.stop()
    latencies = [l for agent in agents for l in agent.latencies]
    total = len(latencies)
    print(f"agents {args.agents}, inquiries {total}, {elapsed:.2f} s: "
          f"{total / elapsed:.0f} inquiries/s, "
          f"p50 {statistics.median(latencies) * 1000:.1f} ms, "
          f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
