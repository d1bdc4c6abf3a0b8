#!/usr/bin/env python3
"""Many agents on one log: N `askuser serve` processes, each on its own stream of
one shared log, asking a one-question inquiry and answering it in lockstep (ask,
read the prompt, answer, read the result, then the next), all at once. Prints the
inquiries per second of all agents together and the latency of one inquiry (ask
written to result read): median and 99th percentile; with --per-agent, each
agent's too (the first agent started owns a sled log). One thread drives every
agent (a selector over their outputs), so the driver adds no lock or thread
switch of its own to a latency.

    cargo build --release -p askuser-cli
    python3 benches/scripts/many_agents.py target/release/askuser --agents 1 --inquiries 1600
    python3 benches/scripts/many_agents.py target/release/askuser --agents 32 --inquiries 1600
    python3 benches/scripts/many_agents.py target/release/askuser --agents 32 --db "$ASKUSER_TEST_PG"
    python3 benches/scripts/many_agents.py target/release/askuser --agents 32 --warm-up 1
    python3 benches/scripts/many_agents.py target/release/askuser --agents 32 --own-sessions

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
import selectors
import time


def line(value):
    return (json.dumps(value, separators=(",", ":")) + "\n").encode()


class Agent:
    """One `askuser serve` on its own stream, driven over its stdin and stdout
    by the one driving thread (a state machine: ask, answer, result)."""

    def __init__(self, askuser, db, stream, own_session=False):
        self.process = subprocess.Popen(
            [askuser, "serve", "--db", db, "--stream", stream],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=own_session)
        self.latencies = []
        self.began_at = []
        self.buffer = b""
        raw = self.process.stdout.readline()
        if not raw:
            raise RuntimeError("askuser serve closed its output")
        ready = json.loads(raw)
        assert ready["type"] == "ready", ready
        os.set_blocking(self.process.stdout.fileno(), False)
        self.left = 0
        self.tag = "q"
        self.inquiry = None
        self.began = 0.0

    def send(self, value):
        self.process.stdin.write(line(value))
        self.process.stdin.flush()

    def ask(self):
        self.inquiry = f"{self.tag}{self.left}"
        self.began = time.monotonic()
        self.send({"type": "ask", "inquiry": self.inquiry, "dialect": "jp",
                   "arguments": {"question": "Deploy now?", "answer_type": "boolean"}})

    def lines(self):
        """The whole lines readable now (the pipe is non-blocking)."""
        chunk = os.read(self.process.stdout.fileno(), 1 << 16)
        if not chunk:
            raise RuntimeError("askuser serve closed its output")
        self.buffer += chunk
        *whole, self.buffer = self.buffer.split(b"\n")
        return [json.loads(raw) for raw in whole if raw]

    def take(self, message):
        """Moves on by one message; False once this agent has asked its last."""
        if message["type"] == "prompt":
            self.send({"type": "answer", "inquiry": self.inquiry, "question": "answer",
                       "value": True, "step": message["step"]})
        elif message["type"] == "result" and message["inquiry"] == self.inquiry:
            self.latencies.append(time.monotonic() - self.began)
            self.began_at.append(self.began)
            self.left -= 1
            if self.left == 0:
                return False
            self.ask()
        return True

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def drive(agents, each):
    """All agents from one thread, woken by whichever has output: no lock or
    thread switch of the driver's own stands between a line and its answer."""
    chooser = selectors.DefaultSelector()
    for agent in agents:
        agent.left = each
        chooser.register(agent.process.stdout, selectors.EVENT_READ, agent)
    for agent in agents:
        agent.ask()
    running = len(agents)
    while running:
        for key, _ in chooser.select():
            agent = key.data
            for message in agent.lines():
                if not agent.take(message):
                    chooser.unregister(agent.process.stdout)
                    running -= 1
                    break


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("askuser")
    parser.add_argument("--agents", type=int, default=1)
    parser.add_argument("--inquiries", type=int, default=1600)
    parser.add_argument("--db")
    parser.add_argument("--per-agent", action="store_true",
                        help="also print each agent's median and 99th percentile")
    parser.add_argument("--warm-up", type=int, default=0, metavar="N",
                        help="before the clock starts, each agent in turn asks N "
                        "inquiries alone (not counted): its first question's one-time "
                        "costs (a new server process's first call, code paged in) "
                        "are then not in the figures")
    parser.add_argument("--own-sessions", action="store_true",
                        help="start each agent's serve in a session of its own, as a "
                        "host started from its own terminal would be: Linux's "
                        "autogroup scheduling then gives each its own share of the "
                        "CPU, where by default all 32 share the driver's (one share "
                        "against the database server's, which is a session of its own)")
    parser.add_argument("--slow", type=float, metavar="MS",
                        help="also print each inquiry slower than MS milliseconds: "
                        "when it began (ms into the run), which agent, and its latency, "
                        "to tell a stall every agent shares from one agent's")
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="askuser-many-agents-")
    db = args.db or os.path.join(scratch, "log")
    run = f"{os.getpid()}-{int(time.time())}"
    agents = [Agent(args.askuser, db, f"agent-{run}-{n}", args.own_sessions)
              for n in range(args.agents)]
    each = args.inquiries // args.agents
    if args.warm_up > 0:
        for agent in agents:
            agent.tag = "w"
            drive([agent], args.warm_up)
            agent.tag = "q"
            agent.latencies.clear()
            agent.began_at.clear()
    began = time.monotonic()
    drive(agents, each)
    elapsed = time.monotonic() - began
    for agent in agents:
        agent.stop()
    latencies = [l for agent in agents for l in agent.latencies]
    total = len(latencies)
    print(f"agents {args.agents}, inquiries {total}, {elapsed:.2f} s: "
          f"{total / elapsed:.0f} inquiries/s, "
          f"p50 {statistics.median(latencies) * 1000:.1f} ms, "
          f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms")
    if args.per_agent:
        print("per agent (median/p99 ms): " + " ".join(
            f"{n}:{statistics.median(agent.latencies) * 1000:.0f}/"
            f"{percentile(agent.latencies, 0.99) * 1000:.0f}"
            for n, agent in enumerate(agents)))
    if args.slow is not None:
        slow = sorted((start - began, n, latency)
                      for n, agent in enumerate(agents)
                      for start, latency in zip(agent.began_at, agent.latencies)
                      if latency * 1000 > args.slow)
        print(f"slower than {args.slow:g} ms (began at ms, agent, ms): " + " ".join(
            f"{start * 1000:.0f}/{n}/{latency * 1000:.0f}" for start, n, latency in slow))


if __name__ == "__main__":
    main()
