"""Cameras and GPIO at the table (the only package that imports picamera2, lazily)."""
