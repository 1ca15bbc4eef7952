"""The passive bot's answer to one state (for crash.py and hang.py, which
answer their first state well and then misbehave)."""
import json


def passive_answer(line):
    state = json.loads(line)
    phase = state["phase"]["name"]
    if phase == "investing":
        return "[0]"
    if phase == "buy":
        return '["Pass"]'
    me = state["players"][state["player"]]
    if phase == "attacking" and state["phase"]["attacker"] == state["player"]:
        return "[0]"
    return f"[{max(1, len(me['cards']) - 1)}]"
