"""Names a card while investing (a string where an int is due)."""
import botlib

botlib.serve(lambda state, number: botlib.send(["Ghost"]))
