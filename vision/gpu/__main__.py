"""`python -m vision.gpu` pack, aside, restore, valsets and judge here; `train PACK --out DIR` on the GPU machine."""

from __future__ import annotations

import sys

USAGE = (
    "uso: python -m vision.gpu pack CARPETA [...] | aside | restore | valsets CARPETA | judge --finder PT [...] | "
    "cocked --finder PT CARPETA ... | "
    "train PAQUETE --out CARPETA"
)


def main(argv: list[str] | None = None) -> int:
    """Dispatch to the pack, aside, restore, valsets, judge, cocked or train command."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("pack", "aside", "restore", "valsets", "judge", "cocked", "train"):
        print(USAGE, file=sys.stderr)
        return 2
    if args[0] == "judge":
        from vision.gpu.judge import main as judge_main

        return judge_main(args[1:])
    if args[0] == "cocked":
        from vision.gpu.cocked import main as cocked_main

        return cocked_main(args[1:])
    if args[0] == "valsets":
        from vision.gpu.valsets import main as valsets_main

        return valsets_main(args[1:])
    if args[0] in ("aside", "restore"):
        from vision.gpu.aside import main as aside_main

        return aside_main(args)
    if args[0] == "pack":
        from vision.gpu.pack import main as pack_main

        return pack_main(args[1:])
    from vision.gpu.train import main as train_main

    return train_main(args[1:])


if __name__ == "__main__":
    sys.exit(main())
