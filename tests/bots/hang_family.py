"""Starts a child and a grandchild that escapes with setsid, then reads its
first state and never answers: everything it started must still die with
the referee, however the referee ends."""
import os
import subprocess
import sys
import time

import botlib

subprocess.Popen(["sleep", "600"])
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "600"])
    os._exit(0)
os.wait()
botlib.note("hang_family: started")
sys.stdin.readline()
time.sleep(600)
