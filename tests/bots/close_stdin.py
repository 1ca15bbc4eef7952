"""Closes its standard input after the first state, answers it, and lingers."""
import json
import os
import sys
import time

import botlib

state = json.loads(sys.stdin.readline())
sys.stdin.close()
os.close(0)
botlib.send([botlib.simple_move(state)])
time.sleep(30)
