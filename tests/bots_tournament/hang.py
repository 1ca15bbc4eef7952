#!/usr/bin/env python3
"""Reads its input and never answers: forfeits every game by timeout."""
import sys
import time

sys.stdin.readline()
time.sleep(3600)
