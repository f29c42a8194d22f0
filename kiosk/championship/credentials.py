"""The broker's security: Mosquitto's password file and ACL, one user per table and the organizer's; spectators read.

A table may publish only its own topics and read only what the organizer sends it; the organizer reads and writes
the whole championship; anyone without a password (a spectator's phone on the Wi-Fi) may only read.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pwd
import secrets
from dataclasses import dataclass
from pathlib import Path

from kiosk.championship import topics

ORGANIZER = "organizador"
PBKDF2_ITERATIONS = 101  # what Debian's mosquitto_passwd (2.0) writes for its "$7$" (PBKDF2-SHA512) hashes
MAX_TABLES = 500

PASSWORD_FILE = "passwd"
ACL_FILE = "acl"
SECRETS_FILE = "credenciales.json"
CONFIG_FILE = "mosquitto.conf"


def table_user(table: int) -> str:
    """The broker user of a table."""
    return f"mesa-{table}"


def hash_password(password: str, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS) -> str:
    """A password as Mosquitto's password file keeps it: `$7$iterations$salt$hash` (PBKDF2-SHA512, base64)."""
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
    return f"$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def acl_text(code: str, tables: int) -> str:
    """The ACL: spectators (no user) read, the organizer reads and writes, each table its own topics."""
    every = f"{topics.ROOT}/{code}/#"
    lines = [
        "# Escrito por `cacho campeonato credenciales`: se vuelve a escribir entero.",
        "# Sin usuario (espectadores): solo leer.",
        f"topic read {every}",
        "",
        f"user {ORGANIZER}",
        f"topic readwrite {every}",
    ]
    for table in range(1, tables + 1):
        lines += ["", f"user {table_user(table)}"]
        lines += [f"topic write {topics.table_topic(code, table, kind)}" for kind in topics.FROM_TABLE]
        lines += [f"topic read {topics.table_topic(code, table, kind)}" for kind in topics.TO_TABLE]
        lines += [f"topic read {topics.championship_topic(code, kind)}" for kind in topics.TO_EVERY_TABLE]
    return "\n".join(lines) + "\n"


def broker_config(folder: Path, port: int = 1883) -> str:
    """A Mosquitto config that uses the files written beside it (for /etc/mosquitto/conf.d/ or `mosquitto -c`)."""
    return (
        "# Escrito por `cacho campeonato credenciales`.\n"
        f"listener {port}\n"
        f"password_file {folder / PASSWORD_FILE}\n"
        f"acl_file {folder / ACL_FILE}\n"
        "allow_anonymous true\n"
        "persistence true\n"
        "# Un organizador ausente un rato encuentra esperando los eventos de todas las mesas.\n"
        "max_queued_messages 200000\n"
    )


@dataclass(frozen=True, slots=True)
class Credentials:
    """A championship's broker users and their passwords (kept beside the password file, readable by root only)."""

    code: str
    tables: int
    passwords: dict[str, str]

    def users(self) -> list[str]:
        """The organizer, then the tables in order."""
        return [ORGANIZER] + [table_user(n) for n in range(1, self.tables + 1)]


def write_broker_files(
    folder: Path, code: str, tables: int, *, renew: bool = False, port: int = 1883, broker_dir: Path | None = None
) -> Credentials:
    """Write (again) the password file, the ACL and a config for `tables` tables; passwords already given are kept
    unless `renew`; the config names the files in `broker_dir` (where the broker will read them; `folder` by
    default). ValueError says what is wrong, before anything is written."""
    topics.check_code(code)
    if not 1 <= tables <= MAX_TABLES:
        raise ValueError(f"--mesas {tables}: un campeonato tiene de 1 a {MAX_TABLES} mesas")
    folder = Path(folder).resolve()
    kept: dict[str, str] = {}
    secrets_path = folder / SECRETS_FILE
    if secrets_path.exists() and not renew:
        known = json.loads(secrets_path.read_text(encoding="utf-8"))
        if known.get("code") != code:
            raise ValueError(
                f"{secrets_path} es del campeonato {known.get('code')!r}, no de {code!r}: use otra carpeta"
            )
        kept = {str(k): str(v) for k, v in known.get("passwords", {}).items()}
    users = [ORGANIZER] + [table_user(n) for n in range(1, tables + 1)]
    passwords = {user: kept.get(user) or secrets.token_urlsafe(9) for user in users}
    credentials = Credentials(code, tables, passwords)
    folder.mkdir(parents=True, exist_ok=True)
    _write_private(secrets_path, json.dumps({"code": code, "tables": tables, "passwords": passwords}, indent=1))
    hashes = "".join(f"{u}:{hash_password(p)}\n" for u, p in passwords.items())
    _write_private(folder / PASSWORD_FILE, hashes, for_broker=True)
    _write_private(folder / ACL_FILE, acl_text(code, tables), for_broker=True)
    (folder / CONFIG_FILE).write_text(broker_config(Path(broker_dir or folder), port), encoding="utf-8")
    return credentials


def read_credentials(folder: Path) -> Credentials:
    """The credentials written in `folder`; ValueError when there are none."""
    path = Path(folder) / SECRETS_FILE
    if not path.exists():
        raise ValueError(f"no hay credenciales en {folder}: escríbalas con `cacho campeonato credenciales`")
    data = json.loads(path.read_text(encoding="utf-8"))
    return Credentials(str(data["code"]), int(data["tables"]), {str(k): str(v) for k, v in data["passwords"].items()})


def _write_private(path: Path, text: str, for_broker: bool = False) -> None:
    """Write a file only its owner may read; one `for_broker`, as root, owned by the `mosquitto` user when there is
    one (the system's broker drops to that user before it reads its password file and ACL)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    if for_broker and os.geteuid() == 0:
        try:
            broker_user = pwd.getpwnam("mosquitto")
        except KeyError:
            pass
        else:
            os.chown(tmp, broker_user.pw_uid, broker_user.pw_gid)
    os.replace(tmp, path)
