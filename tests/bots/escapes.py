"""Writes terminal escape sequences to standard error (clear screen, cursor
moves, OSC 0 window title, OSC 52 clipboard, an 8-bit CSI, a bidi
override), then answers its first state with text full of them: whatever
shows its forfeit to a person must show them harmlessly."""
import sys

NASTY = (
    "\x1b[2J\x1b[H"  # clear the screen, cursor home
    "\x1b]0;pwned\x07"  # window title
    "\x1b]52;c;cm0gLXJmIH4=\x07"  # clipboard: "rm -rf ~"
    "\x9b31m"  # 8-bit CSI
    "\u202egnp.exe"  # right-to-left override
    "\r\x08\x7f"
)
sys.stderr.write(f"escapes: {NASTY}\n")
sys.stderr.flush()
sys.stdin.readline()
sys.stdout.write(f"I play {NASTY}\n")
sys.stdout.flush()
sys.stdin.readline()
