"""Pure rule engines, one sub-package per game: typed actions in, new state and typed rulings out."""
