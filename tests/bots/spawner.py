"""Starts two child processes and a grandchild that escapes with setsid
(double fork), says so on standard error, answers once, then exits."""
import os
import subprocess
import time

import botlib

children = [subprocess.Popen(["sleep", "300"]) for _ in range(2)]
read_end, write_end = os.pipe()
middle = os.fork()
if middle == 0:
    os.setsid()
    grandchild = os.fork()
    if grandchild == 0:
        os.close(read_end)
        os.close(write_end)
        os.closerange(3, 256)
        os.execvp("sleep", ["sleep", "300"])
    os.write(write_end, f"{grandchild}\n".encode())
    os._exit(0)
os.close(write_end)
grandchild = int(os.read(read_end, 64))
os.waitpid(middle, 0)
botlib.note(f"spawner: started {len(children) + 1} processes")


def answer(state, number):
    botlib.send([botlib.simple_move(state)])
    time.sleep(0.2)
    os._exit(0)


botlib.serve(answer)
