"""Two packages side by side, and the arrow between them runs one way:

- games.rules: the pure rules library (standard library only; tests/games/test_conformance.py
  checks every module of it, with no exception). A game is a pure function of (deal, moves).
- games.web: the Django app of casual games (app label ``casual``) on top of games.rules.

Nothing in games.rules imports games.web, Django or any other installed package.
"""
