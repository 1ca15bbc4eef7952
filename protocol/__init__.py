"""Economancy cards, rules engine and wire format (shared by the referee and the bots)."""
