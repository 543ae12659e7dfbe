"""Why a document could not be read, in words a lawyer understands."""

from __future__ import annotations

from enum import StrEnum


def gettext_noop(message: str) -> str:
    """Marks a message for the catalogue without Django: the parsing child has no settings.

    Pages translate the stored English message when they show it.
    """
    return message


class ErrorCode(StrEnum):
    NEEDS_PASSWORD = "NEEDS_PASSWORD"
    NEEDS_OCR = "NEEDS_OCR"
    PARSE_FAILED = "PARSE_FAILED"
    TOO_LARGE = "TOO_LARGE"
    UNSUPPORTED_TYPE = "UNSUPPORTED_TYPE"


class Problem(StrEnum):
    """Each distinct reason, so that each gets its own message."""

    EMPTY = "empty"
    NO_TEXT = "no_text"
    HTML = "html"
    IMAGE = "image"
    LEGACY_WORD = "legacy_word"
    OTHER_OFFICE = "other_office"
    OTHER_ZIP = "other_zip"
    RTF = "rtf"
    BINARY = "binary"
    UNKNOWN_ENCODING = "unknown_encoding"
    FILE_TOO_BIG = "file_too_big"
    TOO_MANY_PAGES = "too_many_pages"
    PASSWORD_REQUIRED = "password_required"
    WRONG_PASSWORD = "wrong_password"
    UNSUPPORTED_ENCRYPTION = "unsupported_encryption"
    NO_TEXT_LAYER = "no_text_layer"
    IMAGES_ONLY_DOCX = "images_only_docx"
    DAMAGED = "damaged"
    NO_PAGES = "no_pages"
    TIMED_OUT = "timed_out"
    OUT_OF_MEMORY = "out_of_memory"
    BOMB = "bomb"


_CODES_AND_MESSAGES: dict[Problem, tuple[ErrorCode, str]] = {
    Problem.EMPTY: (ErrorCode.UNSUPPORTED_TYPE, gettext_noop("The file is empty.")),
    Problem.NO_TEXT: (ErrorCode.UNSUPPORTED_TYPE, gettext_noop("The file contains no text.")),
    Problem.HTML: (
        ErrorCode.UNSUPPORTED_TYPE,
        gettext_noop(
            "This file is a web page (HTML) or other markup, not a PDF, Word or text document. "
            "Save or print the page as a PDF and upload that instead."
        ),
    ),
    Problem.IMAGE: (
        ErrorCode.UNSUPPORTED_TYPE,
        gettext_noop(
            "This file is an image. Upload the contract as a PDF or Word document; "
            "if you only have a scan, run it through OCR (text recognition) first."
        ),
    ),
    Problem.LEGACY_WORD: (
        ErrorCode.UNSUPPORTED_TYPE,
        gettext_noop(
            "This is an older Word or Office file (.doc). Open it in Word, "
            "save it as .docx or PDF, and upload that."
        ),
    ),
    Problem.OTHER_OFFICE: (
        ErrorCode.UNSUPPORTED_TYPE,
        gettext_noop(
            "This is an older Office file other than a Word document (Excel, PowerPoint or "
            "Outlook, for example). Upload the contract itself as a PDF or Word document."
        ),
    ),
    Problem.OTHER_ZIP: (
        ErrorCode.UNSUPPORTED_TYPE,
        gettext_noop(
            "This file is a ZIP archive or an Office file other than a Word document. "
            "Upload the contract itself as a PDF or .docx file."
        ),
    ),
    Problem.RTF: (
        ErrorCode.UNSUPPORTED_TYPE,
        gettext_noop(
            "This is a Rich Text (.rtf) file. Open it in Word, save it as .docx or PDF, "
            "and upload that."
        ),
    ),
    Problem.BINARY: (
        ErrorCode.UNSUPPORTED_TYPE,
        gettext_noop(
            "We can't read this type of file. Upload the contract as a PDF, "
            "a Word document (.docx) or a plain-text file."
        ),
    ),
    Problem.UNKNOWN_ENCODING: (
        ErrorCode.UNSUPPORTED_TYPE,
        gettext_noop(
            "This text file uses a character encoding we can't read. Save it as UTF-8 "
            "(in most editors: Save As, Encoding: UTF-8) and upload it again."
        ),
    ),
    Problem.FILE_TOO_BIG: (
        ErrorCode.TOO_LARGE,
        gettext_noop(
            "The file is larger than the {limit_mb} MB limit. Split it into smaller files or "
            "reduce its size, and upload them separately."
        ),
    ),
    Problem.TOO_MANY_PAGES: (
        ErrorCode.TOO_LARGE,
        gettext_noop(
            "The document has {pages} pages; the limit is {limit}. Split it into smaller files "
            "and upload them separately."
        ),
    ),
    Problem.PASSWORD_REQUIRED: (
        ErrorCode.NEEDS_PASSWORD,
        gettext_noop("This PDF is password-protected. Enter its password and try again."),
    ),
    Problem.WRONG_PASSWORD: (
        ErrorCode.NEEDS_PASSWORD,
        gettext_noop("The password for this PDF is not correct. Check it and try again."),
    ),
    Problem.UNSUPPORTED_ENCRYPTION: (
        ErrorCode.PARSE_FAILED,
        gettext_noop(
            "This PDF uses a kind of protection we can't open. Remove the protection "
            "(for example, print it to a new PDF) and upload that."
        ),
    ),
    Problem.NO_TEXT_LAYER: (
        ErrorCode.NEEDS_OCR,
        gettext_noop(
            "This PDF has no text layer: it looks like a scan or a picture of the pages. "
            "Run it through OCR (text recognition) and upload the result."
        ),
    ),
    Problem.IMAGES_ONLY_DOCX: (
        ErrorCode.NEEDS_OCR,
        gettext_noop(
            "This Word document contains no text, only pictures or empty pages. "
            "If it holds a scan, run it through OCR (text recognition) and upload the result."
        ),
    ),
    Problem.DAMAGED: (
        ErrorCode.PARSE_FAILED,
        gettext_noop(
            "This file is damaged or incomplete, so we couldn't read it. Download or export it "
            "again and upload the new copy."
        ),
    ),
    Problem.NO_PAGES: (ErrorCode.PARSE_FAILED, gettext_noop("This PDF has no pages.")),
    Problem.TIMED_OUT: (
        ErrorCode.PARSE_FAILED,
        gettext_noop(
            "Reading this file took longer than {seconds:g} seconds, so we stopped. It may be "
            "damaged or unusually complex; try exporting it to PDF again."
        ),
    ),
    Problem.OUT_OF_MEMORY: (
        ErrorCode.PARSE_FAILED,
        gettext_noop(
            "Reading this file needed more memory than we allow, so we stopped. It may be damaged "
            "or unusually complex; try exporting it to PDF again."
        ),
    ),
    Problem.BOMB: (
        ErrorCode.PARSE_FAILED,
        gettext_noop(
            "This file contains compressed data that expands to an unreasonable size, so we did "
            "not open it. It may be damaged or deliberately malformed."
        ),
    ),
}


class ExtractionError(Exception):
    """A document that cannot be turned into text.

    `code` is one of `ErrorCode`, `message` a sentence to show the user, `problem` the precise
    reason and `detail` technical context for logs (never shown to users).
    """

    def __init__(self, code: str, message: str, *, problem: str = "", detail: str = "") -> None:
        super().__init__(message)
        self.code = str(code)
        self.message = message
        self.problem = str(problem)
        self.detail = detail

    @classmethod
    def because(cls, problem: Problem, detail: str = "", **facts: object) -> ExtractionError:
        code, template = _CODES_AND_MESSAGES[problem]
        return cls(code, template.format(**facts), problem=problem, detail=detail)

    def __repr__(self) -> str:
        return f"ExtractionError({self.code!r}, {self.message!r}, problem={self.problem!r})"
