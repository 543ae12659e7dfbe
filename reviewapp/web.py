"""One web process of `make run`: uvicorn serving the ASGI application (HTTP and websockets) on
a listening socket inherited from the launcher.

    python -m reviewapp.web --fd N [--log-level warning] [--access-log]

Not `uvicorn --fd N`: uvicorn wraps that descriptor as a Unix socket whatever it is, so asyncio
never sets TCP_NODELAY on its connections and small responses wait on Nagle's algorithm (a test
typing in the queue saw a page miss its own update). Here the socket is taken with its own
family and handed to uvicorn's server as it is (``Server.run(sockets=...)``).

Client addresses: uvicorn believes ``X-Forwarded-For`` from 127.0.0.1 unless told otherwise, so
anyone reaching the app directly could name any address (and walk past the per-address sign-in
lockout, and write it into the audit log). Here the header is believed only from the proxies
``CLAUSEWISE_TRUSTED_PROXIES`` lists (comma-separated addresses or networks; none by default).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from typing import Any

import uvicorn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fd", type=int, required=True, help="an inherited listening socket")
    parser.add_argument("--log-level", default="warning")
    parser.add_argument("--access-log", action="store_true")
    args = parser.parse_args(argv)
    listener = socket.socket(fileno=args.fd)  # family, type and protocol read from the socket
    config = uvicorn.Config(
        "reviewapp.asgi:application",
        ws="websockets-sansio",
        lifespan="off",
        log_level=args.log_level,
        access_log=args.access_log,
        **proxy_options(os.environ.get("CLAUSEWISE_TRUSTED_PROXIES", "")),
    )
    uvicorn.Server(config).run(sockets=[listener])
    return 0


def proxy_options(trusted: str) -> dict[str, Any]:
    """uvicorn's proxy settings: forwarded headers read only from the ``trusted`` proxies."""
    proxies = [part.strip() for part in trusted.split(",") if part.strip()]
    return {"proxy_headers": bool(proxies), "forwarded_allow_ips": proxies}


if __name__ == "__main__":
    sys.exit(main())
