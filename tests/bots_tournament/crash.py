#!/usr/bin/env python3
"""Answers its first state as the passive bot would (it starts, and a
tournament lets it in), then dies before its second answer: forfeits
every game it plays."""
import sys

from firstmove import passive_answer

print(passive_answer(sys.stdin.readline()), flush=True)
sys.stdin.readline()
sys.stderr.write("crash bot: giving up\n")
sys.exit(3)
