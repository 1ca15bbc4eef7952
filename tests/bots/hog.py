"""A bot that reaches for more than its share at its first move, says on
standard error what it got, then plays simply: `hog.py KIND [ARG]`.

- memory GIB: allocate (and touch) GIB gibibytes at once;
- forkbomb: start processes until refused (each sleeps), count them;
- disk GIB: write GIB gibibytes to /tmp/hog, then remove it;
- cpu SECONDS: burn SECONDS of CPU before answering;
- child SECONDS: a child process burns SECONDS of CPU, reaped before the answer;
- thread SECONDS: a second thread burns SECONDS of CPU, joined before the answer;
- env: print its environment, one NAME=VALUE a line;
- affinity: print the CPUs it may run on, then try to widen them.

Stdlib only (python -S).
"""

import os
import sys
import time

import botlib

kind = sys.argv[1]
arg = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0


def memory():
    block = bytearray(int(arg * (1 << 30)))  # a failure is the point: MemoryError, left to crash the bot
    for i in range(0, len(block), 4096):
        block[i] = 1
    botlib.note(f"hog: allocated {len(block)} bytes")


def forkbomb():
    children = []
    error = None
    while len(children) < 100_000:
        try:
            pid = os.fork()
        except OSError as e:
            error = e.strerror
            break
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        children.append(pid)
    botlib.note(f"hog: started {len(children)} processes, then: {error}")


def disk():
    written = 0
    chunk = b"x" * (1 << 20)
    error = None
    try:
        with open("/tmp/hog", "wb") as f:
            while written < arg * (1 << 30):
                f.write(chunk)
                written += len(chunk)
            f.flush()
    except OSError as e:
        error = e.strerror
    botlib.note(f"hog: wrote {written} bytes, then: {error}")
    try:
        os.remove("/tmp/hog")
    except OSError:
        pass


def cpu():
    start = time.process_time()
    while time.process_time() - start < arg:
        pass


def child():
    pid = os.fork()
    if pid == 0:
        cpu()
        os._exit(0)
    os.waitpid(pid, 0)


def thread():
    import threading

    burner = threading.Thread(target=cpu)
    burner.start()
    burner.join()


def env():
    for name, value in sorted(os.environ.items()):
        botlib.note(f"env: {name}={value}")


def affinity():
    botlib.note(f"hog: on CPUs {sorted(os.sched_getaffinity(0))}")
    try:
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
        botlib.note(f"hog: widened to CPUs {sorted(os.sched_getaffinity(0))}")
    except OSError as e:
        botlib.note(f"hog: refused: {e.strerror}")


def answer(state, number):
    if number == 1:
        {"memory": memory, "forkbomb": forkbomb, "disk": disk, "cpu": cpu, "child": child, "thread": thread, "env": env, "affinity": affinity}[kind]()
    botlib.send([botlib.simple_move(state)])


botlib.serve(answer)
