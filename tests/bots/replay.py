"""Replays one seat's recorded answers from a trace of the original driver.

Usage: python -S replay.py TRACE SEAT     (TRACE may be gzip-compressed: .gz)

Answers each state that asks for a move with the next answer recorded
for SEAT, byte for byte, whatever the state says: the conformance test
then checks that our referee sent the same states the original did.
A recorded "timeout" is replayed as silence. Stdlib only, so that it
starts fast under `python -S`.
"""

import gzip
import json
import sys


def recorded_answers(path, seat):
    answers = []
    asked = False
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        for line in f:
            value = json.loads(line)
            if isinstance(value, dict):
                asked = value.get("player") == seat
            elif asked:
                answers.append(None if value == "timeout" else line.rstrip(b"\n"))
                asked = False
    return answers


def answer(answers, states, out):
    """The bot's loop over binary streams (tests/test_conformance.py runs it
    in a thread too): the next answer for each state that asks for one."""
    for line in states:
        phase = json.loads(line)["phase"]["name"]
        if phase in ("end", "fault"):
            continue
        reply = next(answers, None)
        if reply is not None:
            out.write(reply + b"\n")
            out.flush()


def main():
    answer(iter(recorded_answers(sys.argv[1], int(sys.argv[2]))), sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main()
