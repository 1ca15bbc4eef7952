"""Plays `botlib.simple_move`, written in a form given on the command line:
`forms.py TEMPLATE [PAD]`, TEMPLATE a JSON string in which MOVE stands for
the move's JSON (`"[\\n  MOVE\\n]\\n"`: pretty-printed; `"[MOVE]"`: no
newline) and PAD for PAD spaces (too many for a command line).
For the table of answer forms in tests/test_answer_forms.py.
"""

import json
import sys

import botlib

template = json.loads(sys.argv[1]).replace("PAD", " " * int(sys.argv[2]) if len(sys.argv) > 2 else "")


def answer(state, number):
    sys.stdout.write(template.replace("MOVE", json.dumps(botlib.simple_move(state))))
    sys.stdout.flush()


botlib.serve(answer)
