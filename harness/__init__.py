"""What the tests and the benchmarks both run on: the servers they start and own
(servers.py), simulated players (players.py), an in-process WSGI client (wsgi_client.py),
finished games in bulk (fixtures.py) and the figures they report (stats.py). It imports
neither tests/ nor bench/, and neither of them imports the other."""
