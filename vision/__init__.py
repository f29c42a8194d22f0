"""Reading the table: frames in, typed detections and readings out (the only package that imports ultralytics)."""
