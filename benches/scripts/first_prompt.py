#!/usr/bin/env python3
"""Times `askuser serve` from its start to its `ready` line and to the first
`prompt` for a new ask, on a given log (the 1M-event benchmark database of
`benches/store.rs`, say, or a `postgres://` URL).

    cargo build --release -p askuser-cli
    python3 benches/scripts/first_prompt.py target/release/askuser DB [--stream S] [--runs 5]

Without --stream, each run uses a new stream. Prints each run's figures and the
median.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

ASK = {"type": "ask", "inquiry": "first", "dialect": "jp-form", "arguments": {"questions": [
    {"id": "apply", "text": "Apply the proposed migration?", "answer_type": "boolean"}]}}


def run(askuser, db, stream):
    started = time.monotonic()
    serve = subprocess.Popen([askuser, "serve", "--db", db, "--stream", stream],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    serve.stdin.write((json.dumps(ASK) + "\n").encode())
    serve.stdin.flush()
    ready = prompt = None
    for line in serve.stdout:
        now = time.monotonic() - started
        kind = json.loads(line).get("type")
        if kind == "ready" and ready is None:
            ready = now
        if kind == "prompt" and b'"inquiry":"first"' in line:
            prompt = now
            break
    serve.stdin.close()
    serve.wait()
    return ready, prompt


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("askuser")
    parser.add_argument("db")
    parser.add_argument("--stream")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    prompts = []
    for i in range(args.runs):
        stream = args.stream or f"first-{os.getpid()}-{i}-{int(time.time() * 1000)}"
        ready, prompt = run(args.askuser, args.db, stream)
        if prompt is None:
            print(f"run {i}: no prompt (ready {ready})")
            continue
        prompts.append(prompt)
        print(f"run {i}: ready {ready * 1000:.1f} ms, first prompt {prompt * 1000:.1f} ms")
    if prompts:
        print(f"median first prompt: {statistics.median(prompts) * 1000:.1f} ms "
              f"(min {min(prompts) * 1000:.1f}, max {max(prompts) * 1000:.1f})")


if __name__ == "__main__":
    main()
