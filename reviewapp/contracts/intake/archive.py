"""Checking a zip before anything in it is unpacked: Python's zipfile with explicit checks.

zipfile is the standard library's reader, and what Django and most Python services use; it
does not protect against hostile archives by itself, so every limit is checked here, on the
central directory, before a byte is decompressed:

- too many entries (``INTAKE_MAX_ENTRIES``);
- a zip bomb: the declared uncompressed total over ``INTAKE_MAX_UNCOMPRESSED_BYTES``, or an
  entry (over 1 MiB) that expands more than ``INTAKE_MAX_RATIO`` times;
- path traversal: absolute names, drive letters, ``..`` parts, links;
- encrypted entries, and archives inside the archive (refused entry by entry: the rest is read).

While unpacking, zipfile stops each entry at its declared size and checks its CRC, so an entry
that lies about its size fails alone (``BadZipFile``) instead of filling the disk.
"""

from __future__ import annotations

import posixpath
import re
import stat
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

from django.utils.translation import gettext_noop

MEBIBYTE = 1024 * 1024
RATIO_CHECKED_ABOVE = MEBIBYTE  # small entries (a page of spaces) may compress very well
# Operating-system litter in zips made on macOS and Windows: not documents, never counted.
_LITTER = re.compile(r"(^|/)(__MACOSX/|\.DS_Store$|Thumbs\.db$|desktop\.ini$|\._)", re.IGNORECASE)
ARCHIVE_SUFFIXES = (".zip", ".rar", ".7z", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zipx", ".jar")

NOT_A_ZIP = gettext_noop("This file is not a zip archive, or it is damaged.")
TOO_MANY = gettext_noop(
    "The zip holds %(count)s files; at most %(limit)s are accepted in one upload."
)
TOO_BIG = gettext_noop(
    "The zip would unpack to %(size)s MB, over the limit of %(limit)s MB: it was not opened."
)
BOMB = gettext_noop(
    "%(name)s expands %(ratio)s times its packed size (at most %(limit)s times is accepted): "
    "the zip looks like a zip bomb and was not opened."
)
TRAVERSAL = gettext_noop(
    "%(name)s points outside the folder it is unpacked into (an absolute path, a drive, “..” "
    "or a link): the zip was not opened."
)
EMPTY = gettext_noop("The zip holds no files.")
NESTED = gettext_noop("An archive inside the zip is not opened: unpack it and upload its files.")
ENCRYPTED = gettext_noop("This file is encrypted inside the zip: zip it again without a password.")


@dataclass(frozen=True)
class ZipRefused(Exception):
    """The whole zip is refused; ``message`` (with ``params``) says why, for the uploader."""

    code: str
    message: str
    params: Mapping[str, object]

    def text(self) -> str:
        return self.message % self.params


@dataclass(frozen=True)
class ZipLimits:
    max_entries: int
    max_uncompressed_bytes: int
    max_ratio: float


@dataclass(frozen=True)
class ZipEntry:
    info: zipfile.ZipInfo
    name: str  # the file's own name
    folder: str  # where it sat in the zip ("Leases/2019"), "" at the top
    problem: str = ""  # a reason to refuse this entry alone (a message id), "" when fine


def zip_entries(stream: IO[bytes], *, limits: ZipLimits) -> list[ZipEntry]:
    """The documents in a zip, each with its folder; raises ZipRefused for the whole zip."""
    try:
        archive = zipfile.ZipFile(stream)
        infos = [info for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as error:
        raise ZipRefused("NOT_A_ZIP", NOT_A_ZIP, {}) from error
    infos = [info for info in infos if not _LITTER.search(info.filename)]
    _check_counts(infos, limits)
    return [_entry(info, limits) for info in infos]


def _check_counts(infos: list[zipfile.ZipInfo], limits: ZipLimits) -> None:
    if not infos:
        raise ZipRefused("EMPTY", EMPTY, {})
    if len(infos) > limits.max_entries:
        raise ZipRefused(
            "TOO_MANY_ENTRIES", TOO_MANY, {"count": len(infos), "limit": limits.max_entries}
        )
    total = sum(info.file_size for info in infos)
    if total > limits.max_uncompressed_bytes:
        params = {"size": total // MEBIBYTE, "limit": limits.max_uncompressed_bytes // MEBIBYTE}
        raise ZipRefused("ZIP_TOO_BIG", TOO_BIG, params)


def _entry(info: zipfile.ZipInfo, limits: ZipLimits) -> ZipEntry:
    path = info.filename.replace("\\", "/")
    if _escapes(path) or stat.S_ISLNK(info.external_attr >> 16):
        raise ZipRefused("PATH_TRAVERSAL", TRAVERSAL, {"name": info.filename[:200]})
    if info.file_size > RATIO_CHECKED_ABOVE:
        ratio = info.file_size / max(info.compress_size, 1)
        if ratio > limits.max_ratio:
            params = {"name": path[:200], "ratio": int(ratio), "limit": f"{limits.max_ratio:g}"}
            raise ZipRefused("ZIP_BOMB", BOMB, params)
    folder, name = posixpath.split(path)
    problem = ""
    if info.flag_bits & 0x1:
        problem = ENCRYPTED
    elif name.lower().endswith(ARCHIVE_SUFFIXES):
        problem = NESTED
    return ZipEntry(info=info, name=name, folder=folder, problem=problem)


def _escapes(path: str) -> bool:
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path) or "\x00" in path:
        return True
    return any(part == ".." for part in path.split("/"))
