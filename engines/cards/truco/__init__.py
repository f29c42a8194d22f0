"""Brazilian Truco (seed 001): partnerships, the mão's deal, tricks, truco stakes, eleven and iron hands."""
