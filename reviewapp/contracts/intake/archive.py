"""Checking a zip before anything in it is unpacked: Python's zipfile with explicit checks.

zipfile is the standard library's reader, and what Django and most Python services use; it
does not protect against hostile archives by itself, so every limit is checked here, on the
central directory, before a byte is decompressed:

- too many entries (``INTAKE_MAX_ENTRIES``);
- a zip bomb: the declared uncompressed total over ``INTAKE_MAX_UNCOMPRESSED_BYTES``, the whole
  zip expanding more than ``INTAKE_MAX_RATIO`` times its own size on disk (once it unpacks to
  over 1 MiB), or an entry over 1 MiB expanding more than that;
- path traversal: absolute names, drive letters, ``..`` parts, links;
- encrypted entries, archives inside the archive and entries without a file name (refused entry
  by entry, with a code of ``codes.FailureCode``: the rest is read).

The whole-zip ratio is taken over the archive's real size, not the sizes its directory
declares, so entries that share one compressed stream (an "overlapping" bomb) count too. Each
entry is keyed by its position in the directory, and a name that comes twice in one folder is
kept for both: the second is named "name (2).pdf".

While unpacking, zipfile stops each entry at its declared size and checks its CRC, so an entry
that lies about its size fails alone (``BadZipFile``) instead of filling the disk.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import IO

from django.utils.translation import gettext_noop

from reviewapp.contracts.intake.codes import FailureCode

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
WHOLE_BOMB = gettext_noop(
    "The zip would unpack to %(size)s MB, %(ratio)s times its own size (at most %(limit)s "
    "times is accepted): it looks like a zip bomb and was not opened."
)
TRAVERSAL = gettext_noop(
    "%(name)s points outside the folder it is unpacked into (an absolute path, a drive, “..” "
    "or a link): the zip was not opened."
)
EMPTY = gettext_noop("The zip holds no files.")


@dataclass(frozen=True)
class ZipRefused(Exception):
    """The whole zip is refused; ``message`` (with ``params``) says why, for the uploader."""

    code: FailureCode
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
    position: int  # its place in the zip's directory: the entry's key, even where names repeat
    name: str  # the file's own name ("lease (2).pdf" for the second "lease.pdf" of a folder)
    folder: str  # where it sat in the zip ("Leases/2019"), "" at the top
    problem: FailureCode | None = None  # a reason to refuse this entry alone


def zip_entries(stream: IO[bytes], *, limits: ZipLimits) -> list[ZipEntry]:
    """The documents in a zip, each with its folder; raises ZipRefused for the whole zip."""
    try:
        archive = zipfile.ZipFile(stream)
        infos = [
            (position, info)
            for position, info in enumerate(archive.infolist())
            if not info.is_dir() and not _LITTER.search(info.filename)
        ]
        archive_bytes = stream.seek(0, os.SEEK_END)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as error:
        raise ZipRefused(FailureCode.NOT_A_ZIP, NOT_A_ZIP, {}) from error
    _check_counts([info for _, info in infos], limits, archive_bytes)
    return _unique_names([_entry(position, info, limits) for position, info in infos])


def _check_counts(infos: list[zipfile.ZipInfo], limits: ZipLimits, archive_bytes: int) -> None:
    if not infos:
        raise ZipRefused(FailureCode.EMPTY, EMPTY, {})
    if len(infos) > limits.max_entries:
        params: dict[str, object] = {"count": len(infos), "limit": limits.max_entries}
        raise ZipRefused(FailureCode.TOO_MANY_ENTRIES, TOO_MANY, params)
    total = sum(info.file_size for info in infos)
    if total > limits.max_uncompressed_bytes:
        params = {"size": total // MEBIBYTE, "limit": limits.max_uncompressed_bytes // MEBIBYTE}
        raise ZipRefused(FailureCode.ZIP_TOO_BIG, TOO_BIG, params)
    ratio = total / max(archive_bytes, 1)
    if total > RATIO_CHECKED_ABOVE and ratio > limits.max_ratio:
        params = {"size": total // MEBIBYTE, "ratio": int(ratio), "limit": f"{limits.max_ratio:g}"}
        raise ZipRefused(FailureCode.ZIP_BOMB, WHOLE_BOMB, params)


def _entry(position: int, info: zipfile.ZipInfo, limits: ZipLimits) -> ZipEntry:
    path = info.filename.replace("\\", "/")
    if _escapes(path) or stat.S_ISLNK(info.external_attr >> 16):
        raise ZipRefused(FailureCode.PATH_TRAVERSAL, TRAVERSAL, {"name": info.filename[:200]})
    if info.file_size > RATIO_CHECKED_ABOVE:
        ratio = info.file_size / max(info.compress_size, 1)
        if ratio > limits.max_ratio:
            params = {"name": path[:200], "ratio": int(ratio), "limit": f"{limits.max_ratio:g}"}
            raise ZipRefused(FailureCode.ZIP_BOMB, BOMB, params)
    folder, name = posixpath.split(path)
    folder = folder.strip("/")
    problem = None
    if not name.strip(" ."):
        problem = FailureCode.EMPTY_NAME
    elif info.flag_bits & 0x1:
        problem = FailureCode.ENCRYPTED
    elif name.lower().endswith(ARCHIVE_SUFFIXES):
        problem = FailureCode.NESTED_ARCHIVE
    return ZipEntry(info=info, position=position, name=name, folder=folder, problem=problem)


def _unique_names(entries: list[ZipEntry]) -> list[ZipEntry]:
    """A name that comes again in the same folder gets " (2)", " (3)"... before its extension,
    never one that another entry already has."""
    taken = {_key(entry.folder, entry.name) for entry in entries}
    seen: set[tuple[str, str]] = set()
    unique = []
    for entry in entries:
        key = _key(entry.folder, entry.name)
        if key in seen and entry.problem is None:
            stem, extension = posixpath.splitext(entry.name)
            number = 2
            while _key(entry.folder, f"{stem} ({number}){extension}") in taken | seen:
                number += 1
            entry = replace(entry, name=f"{stem} ({number}){extension}")
            key = _key(entry.folder, entry.name)
        seen.add(key)
        unique.append(entry)
    return unique


def _key(folder: str, name: str) -> tuple[str, str]:
    return folder.casefold(), name.casefold()


def _escapes(path: str) -> bool:
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path) or "\x00" in path:
        return True
    return any(part == ".." for part in path.split("/"))
