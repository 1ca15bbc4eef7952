"""Reports what it can reach as one JSON line on its log (see hostile.Log),
then plays: its ids, capabilities, the processes and network it sees, a
TCP port the test listens on ($ECONOMANCY_TEST_PORT), /root, and whether
a user namespace of its own lets it unmount its /proc (to uncover the
host's) or mount a new one."""
import ctypes
import json
import os
import socket

import botlib
import hostile

CLONE_NEWNS, CLONE_NEWUSER, MNT_DETACH = 0x00020000, 0x10000000, 2


def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return line.split()[1]
    return None


def attempt(action):
    try:
        return ["ok", action()]
    except OSError as e:
        return ["refused", e.strerror]


def connect():
    with socket.create_connection(("127.0.0.1", int(os.environ["ECONOMANCY_TEST_PORT"])), timeout=2):
        return "connected"


def escape_proc():
    """Try to undo the namespaces' /proc from a nested user+mount namespace."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare: " + os.strerror(ctypes.get_errno()))
    if libc.umount2(b"/proc", MNT_DETACH) != 0:
        raise OSError(ctypes.get_errno(), "umount /proc: " + os.strerror(ctypes.get_errno()))
    return len([e for e in os.listdir("/proc") if e.isdigit()])


def run_in_child(action):
    """`action` in a forked child (unshare changes the caller for good)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, json.dumps(attempt(action)).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    return json.loads(os.read(read, 4096))


report = {
    "uid": os.getuid(),
    "gid": os.getgid(),
    "groups": os.getgroups(),
    "pid": os.getpid(),
    "processes": sorted(int(e) for e in os.listdir("/proc") if e.isdigit()),
    "CapEff": status("CapEff"),
    "CapBnd": status("CapBnd"),
    "NoNewPrivs": status("NoNewPrivs"),
    "interfaces": [name for _, name in socket.if_nameindex()],
    "port": attempt(connect),
    "root": attempt(lambda: sorted(os.listdir("/root"))),
    "escape": run_in_child(escape_proc),
}
hostile.Log("inspect")(json.dumps(report))
botlib.serve(lambda state, number: botlib.send([botlib.simple_move(state)]))
