"""A bot that tries to find another copy of itself through every channel a
process has on one machine, and says what it found on standard error.

Each copy, at each of its moves, leaves a mark on each channel (a file in
each world-writable place, a path and an abstract unix socket, a TCP port,
a SysV message queue, a POSIX message queue, a file lock, its pid for
signals) and looks for the other copy's. Lines it writes:
"made CHANNEL" when its own mark is in place, "SAW CHANNEL ..." when it
found another copy's, "tried CHANNEL" otherwise. Stdlib only (python -S).
"""

import ctypes
import ctypes.util
import errno
import fcntl
import os
import socket
import uuid

import botlib

ME = uuid.uuid4().hex[:12]
PLACES = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
PORT = 47613
KEY = 0x45C0FFEE
_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_kept = []  # sockets and descriptors held for the whole game


def note(text):
    botlib.note(f"collude {ME}: {text}")


def files():
    for place in PLACES:
        if not os.path.isdir(place):
            continue
        try:
            with open(os.path.join(place, f"economancy-collude-{ME}"), "w") as f:
                f.write(ME)
            note(f"made file:{place}")
        except OSError as e:
            note(f"tried file:{place} ({e.strerror})")
            continue
        others = [n for n in os.listdir(place) if n.startswith("economancy-collude-") and ME not in n]
        note(f"SAW file:{place} {others}" if others else f"tried file:{place}")


def unix_sockets():
    for kind, address in (("path", "/tmp/economancy-collude.sock"), ("abstract", "\0economancy-collude")):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(address)
            s.listen(8)
            _kept.append(s)
            note(f"made unix:{kind}")
        except OSError as e:
            s.close()
            seen = e.errno == errno.EADDRINUSE
            note(f"SAW unix:{kind} ({e.strerror})" if seen else f"tried unix:{kind} ({e.strerror})")


def network():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", PORT))
        s.listen(4)
        _kept.append(s)
        note("made tcp")
    except OSError as e:
        s.close()
        note(f"SAW tcp (port in use: {e.strerror})" if e.errno == errno.EADDRINUSE else f"tried tcp ({e.strerror})")
    for host in ("10.0.2.2", "172.17.0.1"):
        c = socket.socket()
        c.settimeout(0.2)
        try:
            c.connect((host, 22))
            note(f"SAW tcp host {host}")
        except OSError as e:
            note(f"tried tcp host {host} ({e.strerror})")
        finally:
            c.close()


def sysv_queue():
    queue = _libc.msgget(KEY, 0o1000 | 0o2000 | 0o600)  # IPC_CREAT | IPC_EXCL
    if queue >= 0:
        note("made sysv-queue")
    elif ctypes.get_errno() == errno.EEXIST:
        note("SAW sysv-queue (key exists)")
    else:
        note(f"tried sysv-queue ({os.strerror(ctypes.get_errno())})")


def posix_queue():
    try:
        rt = ctypes.CDLL(ctypes.util.find_library("rt") or "librt.so.1", use_errno=True)
    except OSError:
        rt = _libc
    rt.mq_open.restype = ctypes.c_int
    q = rt.mq_open(b"/economancy-collude", os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600, None)
    if q >= 0:
        _kept.append(q)
        note("made posix-queue")
    elif ctypes.get_errno() == errno.EEXIST:
        note("SAW posix-queue (name exists)")
    else:
        note(f"tried posix-queue ({os.strerror(ctypes.get_errno())})")


def shared_memory():
    name = f"/dev/shm/economancy-collude-shm-{ME}"
    try:
        fd = os.open(name, os.O_CREAT | os.O_RDWR, 0o600)
        os.ftruncate(fd, 4096)
        _kept.append(fd)
        note("made shm")
    except OSError as e:
        note(f"tried shm ({e.strerror})")
    others = [n for n in os.listdir("/dev/shm") if n.startswith("economancy-collude-") and ME not in n]
    note(f"SAW shm {others}" if others else "tried shm")


def locks():
    path = "/tmp/economancy-collude.lock"
    try:
        fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o666)
    except OSError as e:
        note(f"tried lock ({e.strerror})")
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        _kept.append(fd)
        note("made lock")
    except OSError:
        note("SAW lock (held by another)")


def signals():
    others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
    reached = []
    for pid in others:
        try:
            os.kill(pid, 0)
            reached.append(pid)
        except OSError:
            pass
    note(f"SAW signal {reached}" if reached else "tried signal")
    note("made signal")


CHANNELS = (files, unix_sockets, network, sysv_queue, posix_queue, shared_memory, locks, signals)


def look():
    """What the other copy may have left since our first move."""
    for place in PLACES:
        if os.path.isdir(place):
            others = [n for n in os.listdir(place) if n.startswith("economancy-collude-") and ME not in n]
            note(f"SAW file:{place} {others}" if others else f"tried file:{place}")
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        if pid not in (1, os.getpid()):
            note(f"SAW signal {pid}")


def answer(state, number):
    if number > 1:
        look()
        botlib.send([botlib.simple_move(state, "defender")])
        return
    for channel in CHANNELS:
        try:
            channel()
        except Exception as e:  # a channel that breaks is reported, never a crash
            note(f"tried {channel.__name__} ({type(e).__name__}: {e})")
    botlib.send([botlib.simple_move(state, "defender")])


botlib.serve(answer)
