"""`python -m vision.gpu pack OUT` here; `python -m vision.gpu train PACK --out DIR` on the GPU machine."""

from __future__ import annotations

import sys

USAGE = "uso: python -m vision.gpu pack CARPETA [...] | python -m vision.gpu train PAQUETE --out CARPETA [...]"


def main(argv: list[str] | None = None) -> int:
    """Dispatch to the pack or train command."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("pack", "train"):
        print(USAGE, file=sys.stderr)
        return 2
    if args[0] == "pack":
        from vision.gpu.pack import main as pack_main

        return pack_main(args[1:])
    from vision.gpu.train import main as train_main

    return train_main(args[1:])


if __name__ == "__main__":
    sys.exit(main())
