"""Statistics over stored results: one algorithm per module, plain functions."""
