"""Decoding plain-text files: UTF-8, UTF-16 and GB18030, and nothing that only looks like text.

The decoded text is kept exactly as it is in the file (only a byte-order mark is dropped), because
passages are stored as character offsets into it.
"""

from __future__ import annotations

import codecs
import re

from .errors import ExtractionError, Problem

# Characters that do not occur in real text: C0/C1 controls other than tab, line and page
# breaks, DEL, NUL, lone surrogates and private-use characters.
_IMPLAUSIBLE = re.compile(
    "[\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff\ue000-\uf8ff\U000f0000-\U0010ffff]"
)
_MAX_IMPLAUSIBLE_SHARE = 0.005
_NON_ASCII = re.compile("[^\x00-\x7f]")
_CJK = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
_IDEOGRAPH = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
_IDEOGRAPH_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]{2,}")
# Bytes of ordinary ASCII text: printable characters, tab and line breaks.
_ASCII_TEXT_BYTES = bytes(range(0x20, 0x7F)) + b"\t\n\r"
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_text(data: bytes, *, complete: bool = True) -> tuple[str, str]:
    """Return the text of `data` and the codec that gives it: `data.decode(codec) == text`.

    With `complete=False`, `data` is the start of a file and may end inside a character.
    Raises `ExtractionError` (UNSUPPORTED_TYPE) when no supported encoding gives plausible text.
    """
    for codec in _candidate_codecs(data):
        text = _decode(data, codec, complete)
        if text is not None and _is_plausible(text, codec):
            return text, codec
    other_bytes = len(data.translate(None, _ASCII_TEXT_BYTES))
    # A NUL byte outside UTF-16 (which was tried above) means a program or data file, not text.
    if other_bytes < 0.3 * len(data) and b"\x00" not in data:
        raise ExtractionError.because(Problem.UNKNOWN_ENCODING, "mostly ASCII, no encoding fits")
    raise ExtractionError.because(Problem.BINARY, "no text encoding gives plausible text")


def _candidate_codecs(data: bytes) -> list[str]:
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return [codec]
    utf16 = _utf16_without_bom(data[:4096])
    return ["utf-8", *([utf16] if utf16 else []), "gb18030"]


def _utf16_without_bom(sample: bytes) -> str | None:
    """UTF-16 text of mostly Latin script has a NUL byte in every other position."""
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    nul_even, nul_odd = sample[0 : 2 * pairs : 2].count(0), sample[1 : 2 * pairs : 2].count(0)
    if nul_odd >= 0.3 * pairs and nul_even <= 0.05 * pairs:
        return "utf-16-le"
    if nul_even >= 0.3 * pairs and nul_odd <= 0.05 * pairs:
        return "utf-16-be"
    return None


def _decode(data: bytes, codec: str, complete: bool) -> str | None:
    decoder = codecs.getincrementaldecoder(codec)(errors="strict")
    try:
        return decoder.decode(data, final=complete)
    except UnicodeDecodeError:
        return None


def _is_plausible(text: str, codec: str) -> bool:
    if len(_IMPLAUSIBLE.findall(text)) > _MAX_IMPLAUSIBLE_SHARE * len(text) or "\x00" in text:
        return False
    return codec != "gb18030" or _looks_chinese(text)


def _looks_chinese(text: str) -> bool:
    """GB18030 decodes many byte strings; real Chinese text is CJK characters, mostly in runs.

    A Western file in a legacy code page decodes to isolated ideographs among ASCII instead.
    """
    non_ascii = len(_NON_ASCII.findall(text))
    if non_ascii == 0:
        return True
    ideographs = len(_IDEOGRAPH.findall(text))
    in_runs = sum(len(run) for run in _IDEOGRAPH_RUN.findall(text))
    return len(_CJK.findall(text)) >= 0.8 * non_ascii and in_runs >= 0.5 * ideographs
