"""Speed-ups for pypdf text extraction, installed in the sandboxed child process only.

All three patch pypdf internals, so pypdf is pinned to the one version they were written
against (``PATCHED_PYPDF``, and ``pypdf==`` in pyproject.toml); ``install`` refuses any other
version loudly, and tests/contracts compare the patched extraction with stock pypdf on real
contracts.
"""

from __future__ import annotations

from typing import Any

from pypdf._text_extraction import _text_extractor as text_extractor
from pypdf.generic import DictionaryObject
from pypdf.generic._font import Font

from . import content_stream

_FontFactory = Any


PATCHED_PYPDF = "7.1.1"


class UnsupportedPypdf(RuntimeError):
    pass


def install() -> None:
    # pypdf is patched on demand, by the extraction worker that uses it
    import pypdf

    if pypdf.__version__ != PATCHED_PYPDF:
        raise UnsupportedPypdf(
            f"pypdf {pypdf.__version__} is installed; the extractor patches the internals of "
            f"pypdf {PATCHED_PYPDF} only (reviewapp/text/extraction/speedups.py)"
        )
    content_stream.install()
    _cache_fonts()
    _cache_default_encoding()


def _cache_fonts() -> None:
    """Build each font of a document once instead of once per page that uses it.

    Reading a font parses its character map, which costs about a quarter of the extraction time.
    The reader keeps resolved objects alive, so the same font dictionary is the same object on
    every page; the cache keeps the dictionary too, so that its id is not reused. Each child
    process reads one document, so the cache never outlives it.
    """
    build: _FontFactory = Font.from_font_resource
    if getattr(build, "is_cached", False):
        return
    cache: dict[int, tuple[DictionaryObject, Font]] = {}

    def from_font_resource(cls: type[Font], pdf_font_dict: DictionaryObject) -> Font:
        hit = cache.get(id(pdf_font_dict))
        if hit is None or hit[0] is not pdf_font_dict:
            hit = (pdf_font_dict, build(pdf_font_dict))
            cache[id(pdf_font_dict)] = hit
        return hit[1]

    from_font_resource.is_cached = True  # type: ignore[attr-defined]
    Font.from_font_resource = classmethod(from_font_resource)  # type: ignore[assignment,method-assign]


def _cache_default_encoding() -> None:
    """Every page's extractor builds the same 256-entry cp1252 table for its placeholder font;
    build it once and hand out copies."""
    build = text_extractor.encoding_dict_from_named_encoding
    if getattr(build, "is_cached", False):
        return
    tables: dict[str, dict[int, str]] = {}

    def encoding_dict_from_named_encoding(encoding: str) -> dict[int, str]:
        if encoding not in tables:
            tables[encoding] = build(encoding)
        return dict(tables[encoding])

    encoding_dict_from_named_encoding.is_cached = True  # type: ignore[attr-defined]
    text_extractor.encoding_dict_from_named_encoding = encoding_dict_from_named_encoding
