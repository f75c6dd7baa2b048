"""The wording shared by the messages of loading and checking tables.

Every message thus names the file and says what to do in the same phrasing.
"""

from __future__ import annotations

from collections.abc import Sized

#: Ends every message about a file that could not be read.
SUPPORTED_FORMATS = (
    "Supported formats are CSV or TSV (optionally gzip-compressed), Parquet, and Excel (.xlsx)."
)


def capitalised(name: str) -> str:
    """A file or table name as the first word of a message.

    Parameters
    ----------
    name : str
        A file name ("adult.csv"), a role ("real") or the generic default ("the uploaded table").

    Returns
    -------
    str
        Only the generic default gets a capital letter: file names keep their own spelling.

    Examples
    --------
    >>> capitalised("the uploaded table"), capitalised("adult.csv")
    ('The uploaded table', 'adult.csv')
    """
    return name[:1].upper() + name[1:] if name.startswith("the ") else name


def empty_file_message(name: str) -> str:
    """The message for a file without any content.

    Parameters
    ----------
    name : str
        The file's name.

    Returns
    -------
    str
    """
    return (
        f"{capitalised(name)} is empty. Choose the file that holds the table: a header row of column "
        "names followed by one row per record."
    )


def count_of(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` with its noun in the right number.

    Parameters
    ----------
    n : int
        How many.
    singular : str
        The noun for one.
    plural : str, optional
        The noun for several (default: ``singular`` + "s").

    Returns
    -------
    str

    Examples
    --------
    >>> count_of(1, "row"), count_of(3, "row")
    ('1 row', '3 rows')
    """
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def listed(items: Sized, *, limit: int = 10, quote: bool = True) -> str:
    """Items joined by commas, the first ``limit`` of them, then how many more.

    Parameters
    ----------
    items : sequence
        Column names or values.
    limit : int
        Items shown at most.
    quote : bool
        Show each item quoted (``repr`` of its text).

    Returns
    -------
    str

    Examples
    --------
    >>> listed(["age", "sex", "race"], limit=2)
    "'age', 'sex' and 1 more"
    """
    shown = [repr(str(i)) if quote else str(i) for i in list(items)[:limit]]
    rest = len(items) - len(shown)
    return ", ".join(shown) + (f" and {rest} more" if rest > 0 else "")


def short_error(exc: BaseException) -> str:
    """A library's exception as one short line for a message (at most 160 characters).

    Parameters
    ----------
    exc : BaseException
        The error raised by pandas, pyarrow, openpyxl and the like.

    Returns
    -------
    str
        Its text on one line, or its type's name when it has none.
    """
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def declare_categorical(column: str, subject: str = "it") -> str:
    """How to declare ``column`` categorical, in the dashboard and on the command line alike.

    Parameters
    ----------
    column : str
        The column's name.
    subject : str
        How the message refers to the column ("it", "the column").

    Examples
    --------
    >>> declare_categorical("fnlwgt")
    'declare it categorical (its type on the Configure page, or --categorical fnlwgt)'
    """
    return f"declare {subject} categorical (its type on the Configure page, or --categorical {column})"


def leave_out(columns: str | list[str]) -> str:
    """How to leave ``columns`` out of the analysis, in the dashboard and on the command line alike.

    Examples
    --------
    >>> leave_out(["notes", "id"])
    'leave them out of the analysis (untick Analyse on the Configure page, or --exclude notes,id)'
    """
    names = [columns] if isinstance(columns, str) else list(columns)
    them = "it" if len(names) == 1 else "them"
    return (f"leave {them} out of the analysis (untick Analyse on the Configure page, or "
            f"--exclude {','.join(map(str, names))})")
