"""Spanish Cacho, the 24-card betting game (seed 000): betting rounds, resto and showdown."""
