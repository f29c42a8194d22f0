"""Cacheta (seed 003): melds with trumps, knocking with nine or ten cards, the good one, points and VP/GP."""
