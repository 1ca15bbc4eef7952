#!/usr/bin/env python3
"""Answers its first state as the passive bot would (it starts, and a
tournament lets it in), then reads on and never answers again: forfeits
every game by timeout."""
import sys
import time

from firstmove import passive_answer

print(passive_answer(sys.stdin.readline()), flush=True)
time.sleep(3600)
