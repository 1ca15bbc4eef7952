"""Dies before its first move, with a message on stderr."""
import os
import sys

import botlib

botlib.record_pids(os.getpid())
sys.stderr.write("crash_start: cannot initialise, giving up\n")
sys.exit(1)
