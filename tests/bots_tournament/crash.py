#!/usr/bin/env python3
"""Dies before answering anything: forfeits every game it plays."""
import sys

sys.stderr.write("crash bot: giving up\n")
sys.exit(3)
