"""Dies before its first move, with a message on stderr."""
import sys

sys.stderr.write("crash_start: cannot initialise, giving up\n")
sys.exit(1)
