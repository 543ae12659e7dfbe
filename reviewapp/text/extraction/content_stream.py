"""A faster content-stream parser for pypdf's text extraction.

pypdf parses every token of a page's content stream byte by byte in pure Python, which is about
two thirds of the extraction time on real contracts. Text extraction only looks at about twenty
operators. This parser matches whole operations (operands and operator) with one regular
expression, drops every operation that text extraction ignores (paths, colours, marked content)
and every save/restore of the graphics state with nothing kept in between, and builds pypdf
objects only for the operands of the operations it keeps. Anything unusual - inline images,
comments among operands, deep nesting, over-long tokens, odd bytes - hands the whole stream back
to pypdf's own parser. The kept operations are exactly those pypdf's parser gives (tests compare
both on real contracts), so the extracted text is the same.

`install()` patches pypdf's `ContentStream` in the sandboxed child process only: the parsed
operations are incomplete, which is fine for extracting text but not for writing PDFs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from io import BytesIO
from typing import Any

from pypdf import get_configuration
from pypdf._text_extraction._text_extractor import TextExtraction
from pypdf.errors import LimitReachedError
from pypdf.generic import (
    ArrayObject,
    BooleanObject,
    ContentStream,
    FloatObject,
    NameObject,
    NullObject,
    NumberObject,
    read_hex_string_from_stream,
)
from pypdf.generic._utils import __ESCAPE_DICT__ as PDF_ESCAPES
from pypdf.generic._utils import create_string_object

Operation = tuple[list[Any], bytes]

# Operators that `PageObject._extract_text` handles itself, on top of the extractor's handlers.
_PAGE_LEVEL_TEXT_OPERATORS = frozenset({b"'", b'"', b"TJ", b"TD", b"Do"})

# Pieces of the content-stream grammar (ISO 32000 7.8.2), read as pypdf reads them. Quantifiers
# are possessive so that a stream that does not match fails fast instead of backtracking.
_WS = rb"[\x00\t\n\x0c\r ]"
_END = rb"(?![^\s()<>\[\]{}/%])"  # a name or operator ends at whitespace or a delimiter
_NUMBER = rb"[+\-.0-9][+,\-.0-9]{0,47}+(?![+,\-.0-9])"
_NAME = rb"/[^\s()<>\[\]{}/%]{0,4000}+" + _END
_PLAIN_STRING = rb"(?:[^()\\]|\\.)*+"
# One level of balanced, unescaped parentheses inside a string; deeper ones go to pypdf.
_STRING = rb"\((?:[^()\\]|\\.|\(" + _PLAIN_STRING + rb"\))*+\)"
_HEX = rb"<[0-9A-Fa-f\x00\t\n\x0c\r ]*+>"
_VALUE_WORD = rb"(?:true|false|null)" + _END
_SIMPLE = (_NUMBER, _NAME, _STRING, _HEX)
_ARRAY = rb"\[(?:" + b"|".join((_WS, *_SIMPLE, _VALUE_WORD)) + rb")*+\]"
_DICT = rb"<<(?:" + b"|".join((_WS, *_SIMPLE, _ARRAY, _VALUE_WORD)) + rb")*+>>"
# One flat alternation, numbers first: they are most operands, and re tries the alternatives in
# order (a nested group here makes the whole pattern twice as slow).
_OPERAND = b"|".join((*_SIMPLE, _DICT, _ARRAY))
_OPERANDS = rb"(?:(?>" + _OPERAND + rb")" + _WS + rb"*+)*+"
_OPERATOR = rb"[A-Za-z'\"][^\s()<>\[\]{}/%]{0,99}+" + _END
_COMMENT = rb"%[^\r\n]*+"

# Tokens of the operands of one text operator.
_TOKEN = re.compile(
    rb"(" + _NUMBER + rb")|(" + _NAME + rb")|(" + _STRING + rb")|(" + _HEX + rb")"
    rb"|(true|false|null)|(\[)|(\])|([^\x00\t\n\x0c\r ])",
    re.DOTALL,
)
_NUMBER_TOKEN, _NAME_TOKEN, _STRING_TOKEN, _HEX_TOKEN, _WORD_TOKEN = 1, 2, 3, 4, 5
_OPEN_ARRAY, _CLOSE_ARRAY, _STRAY_TOKEN = 6, 7, 8
_WORDS = {b"true": BooleanObject(True), b"false": BooleanObject(False), b"null": NullObject()}

# The escapes of a literal string, read as pypdf's `read_string_from_stream` reads them.
_ESCAPE = re.compile(rb"\\(?:[0-7]{1,3}|[\r\n][\r\n]?|.)", re.DOTALL)


# One operation: its operands (group 1) and operator (group 2), a comment (no group), or any
# other byte (group 3), which sends the stream to pypdf.
_OPERATION = re.compile(
    _WS
    + rb"*+(?:"
    + _COMMENT
    + rb"|("
    + _OPERANDS
    + rb")("
    + _OPERATOR
    + rb")|([^\x00\t\n\x0c\r ]))",
    re.DOTALL,
)
_NUMBERS_ONLY = re.compile(rb"[+,\-.0-9\t\n\x0c\r ]*")
_ONE_STRING = re.compile(rb"(" + _STRING + rb")" + _WS + rb"*", re.DOTALL)

# Operands of text operators repeat a lot (font selections, spacing); numbers and names are
# immutable, so their lists are built once per child process.
_MAX_CACHED_OPERANDS = 50_000
_operand_cache: dict[bytes, tuple[Any, ...]] = {}

# Real content streams are at most a few MB. Larger ones are left to pypdf, whose token budget
# stops them, rather than listing millions of operations here.
MAX_FAST_STREAM_BYTES = 16 * 1024 * 1024


class _NeedsStockParser(Exception):
    """The stream holds something this parser does not handle; pypdf's parser will."""


def text_operators() -> frozenset[bytes]:
    return frozenset(TextExtraction().operation_handlers) | _PAGE_LEVEL_TEXT_OPERATORS


def parse_text_operations(
    data: bytes, forced_encoding: Any, wanted: frozenset[bytes], max_operations: int
) -> list[Operation]:
    """Return the (operands, operator) pairs of `data` whose operator is in `wanted`.

    This loop runs millions of times per document, hence its inlined shape.
    """
    if len(data) > MAX_FAST_STREAM_BYTES:
        raise _NeedsStockParser
    operations: list[Operation] = []
    # findall rather than finditer: no per-match method calls, and the last group catches
    # every byte that no operation covers, so nothing is skipped unseen.
    for blob, operator, stray in _OPERATION.findall(data):
        if operator not in wanted:
            if stray or operator == b"BI":
                raise _NeedsStockParser
        elif blob:
            operations.append((_build_operands(blob, forced_encoding), operator))
        elif (
            operator == b"Q" and operations and operations[-1][1] == b"q" and not operations[-1][0]
        ):
            # Saving and at once restoring the graphics state changes nothing; some generators
            # wrap every path in q/Q, hundreds of thousands of times per document.
            operations.pop()
        else:
            operations.append(([], operator))
        if len(operations) > max_operations:
            raise LimitReachedError("Reached maximum number of operations per stream.")
    return operations


def _build_operands(blob: bytes, forced_encoding: Any) -> list[Any]:
    cached = _operand_cache.get(blob)
    if cached is not None:
        return list(cached)
    if _NUMBERS_ONLY.fullmatch(blob):
        values = [_build_number(token) for token in blob.split()]
    else:
        one_string = _ONE_STRING.fullmatch(blob)
        if one_string:
            return [_build_string(one_string.group(1), forced_encoding)]
        values = _build_mixed(blob, forced_encoding)
        if not all(isinstance(value, (int, float, NameObject)) for value in values):
            return values
    if len(_operand_cache) >= _MAX_CACHED_OPERANDS:
        _operand_cache.clear()
    _operand_cache[blob] = tuple(values)
    return values


def _build_mixed(blob: bytes, forced_encoding: Any) -> list[Any]:
    stack: list[list[Any]] = [[]]
    for match in _TOKEN.finditer(blob):
        kind = match.lastindex or _STRAY_TOKEN
        if kind == _OPEN_ARRAY:
            stack.append(ArrayObject())
            continue
        if kind == _CLOSE_ARRAY and len(stack) > 1:
            value = stack.pop()
        else:
            value = _build_value(kind, match.group(kind), forced_encoding)
        stack[-1].append(value)
    return stack[0]


def _build_value(kind: int, token: bytes, forced_encoding: Any) -> Any:
    if kind == _NUMBER_TOKEN:
        return _build_number(token)
    if kind == _NAME_TOKEN:
        return NameObject.read_from_stream(BytesIO(token), None)
    if kind == _STRING_TOKEN:
        return _build_string(token, forced_encoding)
    if kind == _HEX_TOKEN:
        return read_hex_string_from_stream(BytesIO(token), forced_encoding)
    if kind == _WORD_TOKEN:
        return _WORDS[token]
    # A dictionary operand of a text operator is not worth a fast path.
    raise _NeedsStockParser


def _build_number(token: bytes) -> NumberObject | FloatObject:
    # The pypdf constructors, minus a Python frame each; they handle malformed numbers.
    try:
        if b"." in token:
            return float.__new__(FloatObject, float(token))
        return int.__new__(NumberObject, int(token))
    except ValueError:
        return FloatObject(token) if b"." in token else NumberObject(token)


def _build_string(token: bytes, forced_encoding: Any) -> Any:
    body = token[1:-1]
    if b"\\" in body:
        body = _ESCAPE.sub(_unescape, body)
    return create_string_object(body, forced_encoding)


def _unescape(match: re.Match[bytes]) -> bytes:
    return _ESCAPES[match.group()]


def _escape_table() -> dict[bytes, bytes]:
    """What each escape of a literal string stands for, as pypdf's `read_string_from_stream`."""
    table = {b"\\" + bytes((byte,)): b"\\" + bytes((byte,)) for byte in range(256)}
    table.update({b"\\" + key: bytes((value,)) for key, value in PDF_ESCAPES.items()})
    for digits in range(1, 4):
        for code in range(8**digits):
            octal = format(code, "o").zfill(digits).encode()
            # pypdf keeps an out-of-range octal escape as a backslash and the digits.
            table[b"\\" + octal] = bytes((code,)) if code <= 255 else b"\\" + octal
    for line_break in (b"\r", b"\n", b"\r\n", b"\n\r", b"\r\r", b"\n\n"):
        table[b"\\" + line_break] = b""
    return table


_ESCAPES = _escape_table()


def install() -> None:
    """Make pypdf parse content streams with this parser (call once, in the child process)."""
    stock_parse: Callable[[ContentStream, Any], None] = ContentStream._parse_content_stream
    if getattr(stock_parse, "is_text_fast_path", False):
        return
    wanted = text_operators()

    def parse(self: ContentStream, stream: Any) -> None:
        data = stream.getvalue() if isinstance(stream, BytesIO) else stream.read()
        max_operations = get_configuration().stream_parsing_work_maximum_count
        try:
            self._operations = parse_text_operations(
                data, self.forced_encoding, wanted, max_operations
            )
        except _NeedsStockParser:
            self._operations = []
            stock_parse(self, BytesIO(data))

    parse.is_text_fast_path = True  # type: ignore[attr-defined]
    ContentStream._parse_content_stream = parse  # type: ignore[method-assign]
