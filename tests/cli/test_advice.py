"""Advice that works (issue 43, item 3): every message of the table and column-type checks that says what to
do is followed, literally, and the run then succeeds.

The column settings (``--categorical``, ``--exclude``, the Configure page) apply before the type checks; before
the fix ``--categorical COL`` and ``--exclude COL`` gave the very error that advised them, because the tables
were checked before the settings were read. The command line runs in-process (:func:`privcore.cli.main.main`)
on small CSV files; the dashboard's side is in ``tests/app/test_advice_pages.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore.cli.main import main

METRICS = ["--metrics", "crp,dcr"]


def people(n: int, seed: int) -> pd.DataFrame:
    """A small mixed table: two numbers, a text category, a binary column."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(18, 90, n),
        "hours": rng.integers(10, 60, n),
        "job": rng.choice(["nurse", "clerk", "farmer", "teacher"], n),
        "sex": rng.choice(["F", "M"], n),
    })


def run(capsys, folder: Path, *options: str) -> tuple[int, str, dict | None]:
    """``python -m privcore evaluate`` on the files of ``folder``: exit code, stderr, the JSON report."""
    files = ["--real", str(folder / "real.csv"), "--synthetic", str(folder / "synthetic.csv")]
    for role in ("holdout", "reference"):
        if (folder / f"{role}.csv").exists():
            files += [f"--{role}", str(folder / f"{role}.csv")]
    code = main(["evaluate", *files, *METRICS, "--quiet", *options])
    out, err = capsys.readouterr()
    return code, err, json.loads(out) if code == 0 else None


def write(folder: Path, **tables: pd.DataFrame) -> Path:
    for role, frame in tables.items():
        frame.to_csv(folder / f"{role}.csv", index=False)
    return folder


def advised(message: str, flag: str) -> list[str]:
    """The option the message advises, as it is written there (``--categorical hours``)."""
    found = re.findall(rf"--{flag} ([^\s),;]+)", message)
    assert found, f"the message advises no --{flag}: {message}"
    return [f"--{flag}", found[0]]


def with_text(frame: pd.DataFrame, column: str, value: str = "US4") -> pd.DataFrame:
    frame = frame.copy()
    frame[column] = frame[column].astype(object)
    frame.loc[3, column] = value
    return frame


@pytest.mark.parametrize("role", ["synthetic", "holdout", "reference"])
@pytest.mark.parametrize("flag", ["categorical", "exclude"])
def test_text_in_a_number_column_is_fixed_by_the_option_the_message_names(tmp_path, capsys, role, flag):
    tables = {"real": people(60, 1), "synthetic": people(60, 2), "holdout": people(60, 3)}
    if role == "reference":
        tables["reference"] = people(60, 4)
    tables[role] = with_text(tables[role], "hours")
    folder = write(tmp_path, **tables)
    code, err, _ = run(capsys, folder)
    assert code == 2 and "Traceback" not in err
    message = err.strip()
    # Which file, which column, what to do.
    assert f"{role}.csv" in message and "'hours'" in message and "'US4'" in message, message
    option = advised(message, flag)
    assert option == [f"--{flag}", "hours"]
    code, err, report = run(capsys, folder, *option)
    assert code == 0, err
    assert report["metrics"]["dcr"]["applicable"] and report["rows"]["synthetic"] == 60


@pytest.mark.parametrize("flag", ["categorical", "exclude"])
def test_a_column_declared_numerical_that_holds_text_is_fixed_as_advised(tmp_path, capsys, flag):
    folder = write(tmp_path, real=people(60, 1), synthetic=people(60, 2))
    code, err, _ = run(capsys, folder, "--numerical", "job")
    assert code == 2
    assert "Column 'job' is declared numerical but real.csv holds text" in err
    # The user's own --numerical job is what the advice changes: the column gets the advised setting instead.
    code, err, report = run(capsys, folder, *advised(err, flag))
    assert code == 0, err
    assert report["metrics"]["crp"]["applicable"]


def test_a_column_declared_binary_with_more_values_is_fixed_as_advised(tmp_path, capsys):
    folder = write(tmp_path, real=people(60, 1), synthetic=people(60, 2))
    code, err, _ = run(capsys, folder, "--binary", "job")
    assert code == 2 and "Column 'job' is declared binary but takes 4 values" in err
    code, err, report = run(capsys, folder, *advised(err, "categorical"))
    assert code == 0, err


def test_two_types_for_one_column_say_which_flags_clash(tmp_path, capsys):
    folder = write(tmp_path, real=people(60, 1), synthetic=people(60, 2))
    code, err, _ = run(capsys, folder, "--binary", "job", "--categorical", "job")
    assert code == 2 and "Traceback" not in err
    assert "Column 'job' is given two types, --categorical and --binary" in err


def test_an_empty_column_is_fixed_by_leaving_it_out(tmp_path, capsys):
    synthetic = people(60, 2).assign(hours=np.nan)
    folder = write(tmp_path, real=people(60, 1), synthetic=synthetic)
    code, err, _ = run(capsys, folder)
    assert code == 2 and "synthetic.csv has 1 column with no values at all: 'hours'" in err
    option = advised(err, "exclude")
    assert option == ["--exclude", "hours"]
    code, err, report = run(capsys, folder, *option)
    assert code == 0, err
    assert report["metrics"]["dcr"]["applicable"]


@pytest.mark.parametrize("value", ["inf", "1e309"])
def test_an_infinite_number_is_fixed_by_declaring_the_column_categorical(tmp_path, capsys, value):
    synthetic = people(60, 2).astype({"hours": float})
    synthetic["hours"] = synthetic["hours"].astype(object)
    synthetic.loc[5, "hours"] = value
    folder = write(tmp_path, real=people(60, 1), synthetic=synthetic)
    code, err, _ = run(capsys, folder)
    assert code == 2 and "Column 'hours' of synthetic.csv holds" in err and "row 6" in err, err
    code, err, report = run(capsys, folder, *advised(err, "categorical"))
    assert code == 0, err


def test_other_columns_are_fixed_by_renaming_as_advised(tmp_path, capsys):
    folder = write(tmp_path, real=people(60, 1), synthetic=people(60, 2).rename(columns={"hours": "Hours"}))
    code, err, _ = run(capsys, folder)
    assert code == 2 and "Perhaps renamed: 'Hours' for 'hours'" in err
    assert "Rename or remove columns so both tables have the same names" in err
    write(tmp_path, synthetic=people(60, 2))  # renamed back, as the message says
    code, err, _ = run(capsys, folder)
    assert code == 0, err
