"""Exits with status 3 at once, before reading anything."""
import sys

sys.exit(3)
