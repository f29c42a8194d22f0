"""Reading the face up of a die from its full-resolution crop, by two independent methods."""
