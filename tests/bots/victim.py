"""A well-behaved bot that logs every state it receives and every answer
it sends, byte for byte ("got LINE", "sent LINE"): the test compares
that with what the referee says it sent and received."""
import json
import sys

import botlib
import hostile

log = hostile.Log("victim")
for line in sys.stdin:
    line = line.rstrip("\n")
    log(f"got {line}")
    state = json.loads(line)
    if botlib.asks_for_move(state):
        answer = json.dumps([botlib.simple_move(state)])
        log(f"sent {answer}")
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()
