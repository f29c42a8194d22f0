"""`python -m vision.synth --out DIR --count N --seed S`: rendered tables (or finder tiles) as a YOLO folder."""

import sys

from vision.synth.generate import main

if __name__ == "__main__":
    sys.exit(main())
