"""Training data for the dice reader: Blender-rendered sprites composited onto rendered tables."""
