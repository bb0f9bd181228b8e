"""Pêche analysis: an engine that plays from the table alone and values each ask (the way a
chess engine stands beside chess' rules). Standard library only, like games.rules, which
it builds on (tests/games/test_conformance.py checks every module of both).

``engine`` values the ranks in hand at one position the player sees; ``game`` walks a
finished game through it (per-ask values, the best ask, the loss, labels, accuracy,
luck) and plays a deal itself (the day's par).
"""
