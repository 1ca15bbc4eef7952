"""Ignores SIGTERM, plays normally, and does not exit at end of input."""
import signal
import time

import botlib

signal.signal(signal.SIGTERM, signal.SIG_IGN)
botlib.serve(lambda state, number: botlib.send([botlib.simple_move(state)]))
while True:
    time.sleep(1)
