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


def main():
    answers = iter(recorded_answers(sys.argv[1], int(sys.argv[2])))
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        phase = json.loads(line)["phase"]["name"]
        if phase in ("end", "fault"):
            continue
        answer = next(answers, None)
        if answer is not None:
            out.write(answer + b"\n")
            out.flush()


if __name__ == "__main__":
    main()
