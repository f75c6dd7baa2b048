"""Typed input errors."""

from __future__ import annotations


class InputError(ValueError):
    """A problem with user-supplied data or settings.

    Parameters
    ----------
    message : str
        Complete, user-facing sentence(s): what is wrong and what to do.
    file : str, optional
        Name of the file (or table role, e.g. ``"synthetic"``) the problem concerns.
    column : str, optional
        Name of the column the problem concerns.

    Notes
    -----
    Every problem with what a user supplied (a file, a column, a schema choice) is raised as a subclass of
    :class:`InputError`. The message is written for the person who uploaded the data: it names the file and,
    where it applies, the column, and says what to do. The command line prints ``str(error)`` on one line
    and exits with status 2; the dashboard shows it next to the upload it concerns. Nothing else in privcore
    should let a raw pandas or numpy exception reach a user.
    """

    def __init__(self, message: str, *, file: str | None = None, column: str | None = None):
        super().__init__(message)
        self.file = file
        self.column = column

    def one_line(self) -> str:
        """The message flattened to a single line (for stderr)."""
        return " ".join(str(self).split())


class FileTooLargeError(InputError):
    """The file exceeds the configured size limit."""


class EmptyFileError(InputError):
    """The file has no bytes, or a header but no data rows."""


class NoHeaderError(InputError):
    """The first row does not look like column names."""


class DuplicateColumnsError(InputError):
    """Two or more columns share a name."""


class UnparseableFileError(InputError):
    """The file could not be read as CSV, Parquet or Excel."""


class TooFewRowsError(InputError):
    """A table has fewer rows than an evaluation needs."""


class ColumnMismatchError(InputError):
    """Two tables that must share columns do not."""

    def __init__(self, message: str, *, file: str | None = None, missing=(), extra=()):
        super().__init__(message, file=file)
        self.missing = list(missing)
        self.extra = list(extra)


class ColumnTypeConflictError(InputError):
    """A column is numeric in one table and text in another."""


class AllMissingColumnError(InputError):
    """A column has no non-missing value."""


class SchemaError(InputError):
    """The schema (types, key, sensitive column, pairing, options) does not fit the data."""


class ExtremeValueError(SchemaError):
    """A numerical column holds ±inf, or a number too large for the distance spaces' scaling."""


class NotApplicable(Exception):
    """Raised by a metric whose inputs are missing; the message is the one-line reason shown to users.

    It lives here, below every layer, because the vector spaces raise it too (a space that cannot be built
    on these columns makes the metrics that read it not applicable).
    """
