"""`cacho markers --seats N OUT`: a printable sheet of seat markers (PDF or PNG at print resolution)."""

from __future__ import annotations

import argparse
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from kiosk.cli import CliError
from kiosk.commands.common import os_reason
from vision.types import Frame


def register(subparsers: Any) -> None:
    """Add `cacho markers`."""
    markers = subparsers.add_parser(
        "markers",
        help="escribe una hoja imprimible con un marcador ArUco por asiento",
        description="Escribe la hoja de marcadores (A4): PDF si OUT termina en .pdf; PNG con su resolución si en .png.",
    )
    markers.add_argument("out", metavar="OUT", type=Path, help="archivo a escribir (.pdf o .png)")
    markers.add_argument("--seats", metavar="N", type=int, required=True, help="número de asientos (1 a 49)")
    markers.add_argument("--size", metavar="MM", type=float, default=50.0, help="lado del marcador en mm (50)")
    markers.add_argument("--dpi", type=int, default=300, help="resolución de impresión (300)")
    markers.set_defaults(func=run_markers)


def run_markers(args: argparse.Namespace) -> int:
    """Write the sheet; one PNG per page when it takes more than one."""
    from vision.seats import MAX_SEAT, SheetLayout, marker_pages

    if not 1 <= args.seats <= MAX_SEAT:
        raise CliError(f"--seats debe estar entre 1 y {MAX_SEAT} (ids del diccionario ArUco 4x4_50)")
    if not 15 <= args.size <= 180:
        raise CliError("--size debe estar entre 15 y 180 mm (un marcador por celda en una hoja A4)")
    if not 72 <= args.dpi <= 1200:
        raise CliError("--dpi debe estar entre 72 y 1200")
    suffix = args.out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise CliError(f"{args.out}: la hoja se escribe como .pdf o .png")
    if not args.out.parent.is_dir():
        raise CliError(f"no existe la carpeta {args.out.parent}")
    layout = SheetLayout(marker_mm=args.size, dpi=args.dpi)
    pages = marker_pages(list(range(1, args.seats + 1)), layout)
    try:
        if suffix == ".pdf":
            write_pdf(args.out, pages, args.dpi)
            written = [args.out]
        else:
            written = []
            for number, page in enumerate(pages, 1):
                path = args.out if len(pages) == 1 else args.out.with_name(f"{args.out.stem}-{number}.png")
                write_png(path, page, args.dpi)
                written.append(path)
    except OSError as error:
        raise CliError(f"no se pudo escribir {args.out}: {os_reason(error, args.out)}") from None
    for path in written:
        print(path)
    print(
        f"{args.seats} marcador(es) de {layout.printed_mm:.1f} mm en {len(pages)} hoja(s) A4; "
        "imprimir al 100 % (sin ajustar a la página) y medir el cuadro negro."
    )
    return 0


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_png(path: Path, page: Frame, dpi: int) -> None:
    """A PNG with its print resolution recorded (pHYs), so that it prints at the marker's real size."""
    ok, encoded = cv2.imencode(".png", cv2.cvtColor(page, cv2.COLOR_BGR2GRAY))
    if not ok:  # pragma: no cover - OpenCV always encodes a plain grey image
        raise OSError("no se pudo codificar el PNG")
    data = encoded.tobytes()
    per_metre = round(dpi / 0.0254)
    after_header = 8 + 25  # the signature, then the IHDR chunk (13 bytes of data)
    phys = _png_chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1))
    path.write_bytes(data[:after_header] + phys + data[after_header:])


def write_pdf(path: Path, pages: Sequence[Frame], dpi: int) -> None:
    """A PDF with one page per image (grey, deflated), sized so that it prints at `dpi`."""
    body: list[bytes] = []  # objects 3, 4, 5...: per page its image, its content and the page itself
    page_ids = []
    for page in pages:
        grey = np.ascontiguousarray(cv2.cvtColor(page, cv2.COLOR_BGR2GRAY))
        height, width = grey.shape
        w_pt, h_pt = width * 72 / dpi, height * 72 / dpi
        image_id, content_id, page_id = len(body) + 3, len(body) + 4, len(body) + 5
        pixels = zlib.compress(grey.tobytes(), 6)
        body.append(
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
            % (width, height, len(pixels))
            + pixels
            + b"\nendstream"
        )
        content = b"q %.2f 0 0 %.2f 0 0 cm /Im0 Do Q" % (w_pt, h_pt)
        body.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        body.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.2f %.2f] "
            b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>" % (w_pt, h_pt, image_id, content_id)
        )
        page_ids.append(page_id)
    kids = b" ".join(b"%d 0 R" % i for i in page_ids)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids)),
        *body,
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
