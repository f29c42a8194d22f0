"""Serving the kiosk with waitress: a thread per live page up to a cap, and threads kept for the controls."""

from __future__ import annotations

from typing import Any

from flask import Flask

STREAMS = 200  # live pages at once (the TV, the spectators' phones, the coordinator's tabs)
THREADS = 16  # threads for everything else, which the live pages never take


def make_server(app: Flask, host: str, port: int, streams: int = STREAMS, threads: int = THREADS) -> Any:
    """A waitress server for `app`: `streams` live pages at most (more get 503) and `threads` kept for the rest."""
    from waitress import create_server

    app.config["SSE_MAX_STREAMS"] = streams
    return create_server(
        app,
        host=host,
        port=port,
        threads=streams + threads,
        connection_limit=streams + threads + 100,  # the browsers' idle keep-alive connections, and the refused
        channel_request_lookahead=1,  # read on while a stream runs, so a closed page is seen at once
        asyncore_use_poll=True,  # select() stops at 1,024 sockets
        ident="cacho",
        channel_timeout=120,
    )
