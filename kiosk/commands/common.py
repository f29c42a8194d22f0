"""What the game commands share: reading a log file, and reporting the first bad line of a replay."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from engines.jsonl import ReplayError
from kiosk.cli import CliError

State = TypeVar("State")

# What the system says of a file, by errno, in Spanish (its own words are English): os_reason.
OS_REASONS = {
    errno.ENOENT: "no existe",
    errno.EACCES: "no hay permiso",
    errno.EPERM: "no hay permiso",
    errno.EISDIR: "es una carpeta, no un archivo",
    errno.ENOTDIR: "una parte de la ruta es un archivo, no una carpeta",
    errno.EEXIST: "ya existe",
    errno.ENOTEMPTY: "la carpeta no está vacía",
    errno.ENOSPC: "no queda espacio en el disco",
    errno.EDQUOT: "no queda cuota de disco",
    errno.EROFS: "el disco es de solo lectura",
    errno.ENAMETOOLONG: "el nombre es demasiado largo",
    errno.ELOOP: "hay demasiados enlaces simbólicos en la ruta",
    errno.EIO: "falló el disco al leer o escribir",
    errno.EBUSY: "otro programa lo tiene ocupado",
    errno.ETXTBSY: "otro programa lo tiene ocupado",
    errno.EMFILE: "hay demasiados archivos abiertos",
    errno.ENFILE: "hay demasiados archivos abiertos",
    errno.ENXIO: "el dispositivo no está",
    errno.ENODEV: "el dispositivo no está",
}
# The same for SQLite, by its primary result code: sqlite_reason.
SQLITE_REASONS = {
    sqlite3.SQLITE_CANTOPEN: "no se pudo abrir el archivo",
    sqlite3.SQLITE_NOTADB: "el archivo no es una base de datos SQLite",
    sqlite3.SQLITE_CORRUPT: "la base de datos está dañada",
    sqlite3.SQLITE_READONLY: "la base de datos es de solo lectura",
    sqlite3.SQLITE_PERM: "no hay permiso",
    sqlite3.SQLITE_AUTH: "no hay permiso",
    sqlite3.SQLITE_BUSY: "otro programa tiene ocupada la base de datos",
    sqlite3.SQLITE_LOCKED: "otro programa tiene ocupada la base de datos",
    sqlite3.SQLITE_FULL: "no queda espacio en el disco",
    sqlite3.SQLITE_IOERR: "falló el disco al leer o escribir",
}


def os_reason(error: OSError, path: Path | str | None = None) -> str:
    """Why a file operation failed, in Spanish by its errno; the path it failed on, unless it is `path` itself."""
    if error.errno is None:  # raised with a message of its own
        return str(error)
    reason = OS_REASONS.get(error.errno) or f"error del sistema {errno.errorcode.get(error.errno, error.errno)}"
    where = error.filename
    if error.errno == errno.EEXIST and where is not None and os.path.exists(where) and not os.path.isdir(where):
        reason = "es un archivo, no una carpeta"  # mkdir over a file
    if where is None or (path is not None and os.fspath(where) == os.fspath(path)):
        return reason
    return f"{os.fsdecode(where)}: {reason}"


def sqlite_reason(error: sqlite3.Error | OSError, path: Path) -> str:
    """Why the SQLite database `path` could not be opened or used, in Spanish (an OSError: its folder's)."""
    if isinstance(error, OSError):
        return os_reason(error, path)
    if path.is_dir():
        return "es una carpeta, no un archivo de base de datos"
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return "error de SQLite"
    reason = SQLITE_REASONS.get(code & 0xFF) or f"error de SQLite {getattr(error, 'sqlite_errorname', code)}"
    if code & 0xFF == sqlite3.SQLITE_CANTOPEN and not os.access(path.parent, os.W_OK):
        reason = f"no hay permiso para escribir en la carpeta {path.parent}"
    return reason


def read_log_lines(path: Path) -> list[str]:
    """The lines of a JSON Lines log; a missing, unreadable or binary file is a CliError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(f"no existe el registro {path}") from None
    except IsADirectoryError:
        raise CliError(f"{path} es una carpeta, no un registro") from None
    except UnicodeDecodeError:
        raise CliError(f"{path} no es texto UTF-8: no parece un registro JSON Lines") from None
    except OSError as error:
        raise CliError(f"no se pudo leer {path}: {os_reason(error, path)}") from None
    return text.splitlines()


def report_replay_error(error: ReplayError, article_prefix: str = "") -> None:
    """Say on stderr, in Spanish, which line stopped the replay and why."""
    article = f"{article_prefix}{error.article}: " if error.article else ""
    print(f"Error en la línea {error.line}: {article}{error.message}", file=sys.stderr)
    print("(no se aplicó nada desde esa línea)", file=sys.stderr)


def finish_replay(
    state: State | None,
    error: ReplayError | None,
    as_json: bool,
    to_json: Callable[[State], object],
    to_text: Callable[[State], str],
    article_prefix: str = "",
) -> int:
    """Print a replay's outcome, the same way for every game; the exit status (1 at the first bad line).

    With `as_json`: the error object alone, or the final state. Without: the state up to the bad line on
    stdout, and the error on stderr.
    """
    if as_json:
        if error is not None:
            print(json.dumps(error.to_dict(), ensure_ascii=False))
            return 1
        assert state is not None
        print(json.dumps(to_json(state), ensure_ascii=False))
        return 0
    if state is not None:
        print(to_text(state))
    if error is not None:
        report_replay_error(error, article_prefix)
        return 1
    return 0


def loaded_frames(paths: list[Path], as_json: bool, failed: list[Path]) -> Iterator[tuple[Path, Any]]:
    """Each image that loads, with its frame; one that does not is told (a JSON line, or on stderr) and added to
    `failed`, and the others are still read."""
    from vision.frames import FrameError, load_image

    for path in paths:
        try:
            frame = load_image(path)
        except FrameError as error:
            failed.append(path)
            if as_json:
                print(json.dumps({"image": str(path), "error": str(error)}, ensure_ascii=False))
            else:
                print(f"{path}: {error}", file=sys.stderr)
            continue
        yield path, frame


def check_annotate(folder: Path | None) -> None:
    """`--annotate DIR`: a file already there in its place is a CliError, before anything is read or written."""
    if folder is not None and folder.exists() and not folder.is_dir():
        raise CliError(f"--annotate {folder}: es un archivo, no una carpeta (ahí se guardan las fotos anotadas)")


def make_annotate(folder: Path | None) -> None:
    """Create the `--annotate DIR` folder; one that cannot be made is a CliError in Spanish."""
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CliError(f"--annotate {folder}: no se pudo crear la carpeta: {os_reason(error, folder)}") from None


def check_adapt_options(args: Any) -> None:
    """`cacho vision adapt` and `cacho cards adapt`: the held-out share, the minutes and the folder, in Spanish."""
    if not 0.05 <= args.holdout <= 0.8:
        raise CliError(f"--holdout {args.holdout}: debe estar entre 0.05 y 0.8")
    if not 0 < args.minutes <= 120:
        raise CliError(f"--minutes {args.minutes}: debe estar entre 0 y 120")
    epochs = getattr(args, "epochs", None)
    if epochs is not None and not 1 <= epochs <= 1000:
        raise CliError(f"--epochs {epochs}: debe estar entre 1 y 1000")
    if not args.folder.is_dir():
        raise CliError(f"{args.folder}: no existe la carpeta")
