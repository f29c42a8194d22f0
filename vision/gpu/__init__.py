"""Ready to fire on a lent GPU machine: `pack` the run's files here, `train` there (docs/gpu.md)."""
