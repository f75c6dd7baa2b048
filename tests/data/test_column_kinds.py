"""The column kinds people hold (issue 56 item 2): dates, numbers with separators, identifiers, free text."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from privcore import Schema, evaluate
from privcore.base import SchemaError
from privcore.data import column_report, guess_column_type, infer_schema
from privcore.data.column_kinds import date_days, date_format, numbers_of
from privcore.data.prepare import prepare


@pytest.mark.parametrize("values, fmt", [
    (["2001-03-04", "1999-12-31", None], "ISO8601"),
    (["2001-03-04T10:30:00", "1999-12-31 23:59"], "ISO8601"),
    (["31/12/1999", "04/03/2001"], "%d/%m/%Y"),
    (["12/31/1999", "04/23/2001"], "%m/%d/%Y"),
    (["31.12.1999", "04.03.2001"], "%d.%m.%Y"),
    (["4 Mar 2001", "31 Dec 1999"], "%d %b %Y"),
    (["March 4, 2001", "December 31, 1999"], "%B %d, %Y"),
])
def test_common_date_formats_are_recognised(values, fmt):
    assert date_format(pd.Series(values)) == fmt


@pytest.mark.parametrize("values", [["1999", "2001", "2003"], ["a", "b"], [1.5, 2.5], ["12", "3/4"]])
def test_other_text_is_not_a_date(values):
    assert date_format(pd.Series(values)) is None


def test_days_since_1970_by_hand():
    days, bad = date_days(pd.Series(["1970-01-11", "1969-12-31", "1970-01-01T06:00:00", None, "nope"]), "ISO8601")
    assert days[:3].tolist() == [10.0, -1.0, 0.25] and np.isnan(days[3]) and np.isnan(days[4])
    assert bad.tolist() == [False, False, False, False, True]
    stamps = pd.Series(pd.to_datetime(["1970-01-03", None]))
    days, bad = date_days(stamps, "datetime")
    assert days[0] == 2.0 and np.isnan(days[1]) and not bad.any()
    aware = pd.Series(["1970-01-02T00:00:00+01:00"])  # read in UTC: one hour before midnight
    assert date_days(aware, "ISO8601")[0][0] == pytest.approx(1 - 1 / 24)


def test_numbers_with_thousands_separators_are_numbers():
    series = pd.Series(["1,234", "987", "12,000.5", None], name="salary")
    assert numbers_of(series).tolist()[:3] == [1234.0, 987.0, 12000.5]
    assert guess_column_type(series).type == "numerical"
    assert "thousands" in guess_column_type(series).note


@pytest.mark.parametrize("name, values, kind", [
    ("first_name", [f"Name{i % 60}" for i in range(300)], "identifier"),
    ("nameLast", [f"Last{i}" for i in range(300)], "identifier"),
    ("contact", [f"person{i}@example.org" for i in range(300)], "identifier"),
    ("patient", [f"p{i:04d}" for i in range(300)], "identifier"),
    ("notes", [f"seen on day {i} with a mild cough and fever" for i in range(300)], "text"),
    ("country_name", ["France", "Chile", "Japan"] * 100, "categorical"),  # a few values: a category
    ("diagnosis", [f"D{i:03d}" for i in range(300)], "categorical"),  # one code a row, but a code by its name
    ("ref", [f"D{i:03d}" for i in range(300)], "identifier"),  # the same values under a name that says nothing
    ("first_visit", [f"2020-01-{1 + i % 28:02d}" for i in range(300)], "date"),  # "first" without "name"
    ("smoker", ["yes", "no"] * 150, "binary"),
])
def test_kinds_are_inferred_from_names_and_values(name, values, kind):
    assert guess_column_type(pd.Series(values, name=name)).type == kind


def players(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    born = pd.Timestamp("1950-01-01") + pd.to_timedelta(rng.integers(0, 15000, n), unit="D")
    return pd.DataFrame({
        "nameFirst": [f"F{i}" for i in rng.integers(0, 200, n)], "nameLast": [f"L{i}" for i in rng.integers(0, 3000, n)],
        "birthDate": born.strftime("%d/%m/%Y"), "debut": pd.to_datetime(born) + pd.Timedelta(days=8000),
        "salary": [f"{v:,}" for v in rng.integers(50_000, 3_000_000, n)], "bats": rng.choice(["R", "L", "B"], n),
        "notes": [f"player number {i} signed in the spring" for i in range(n)], "empty": [None] * n,
    })


def test_a_table_with_names_dates_and_text_is_analysed_and_every_column_said():
    real, synthetic, holdout = players(300, 1), players(300, 2), players(300, 3)
    schema = infer_schema(real, sensitive="bats")
    assert schema.dates == ["birthDate", "debut"] and schema.identifiers == ["nameFirst", "nameLast"]
    assert schema.texts == ["notes"] and schema.left_out == {"empty": "it has no values in the real table"}
    data = prepare(real, synthetic, schema, holdout)
    expected = (pd.to_datetime(real["birthDate"], format="%d/%m/%Y") - pd.Timestamp("1970-01-01")).dt.days
    assert data.real["birthDate"].tolist() == expected.astype(float).tolist()
    assert data.real["salary"].iloc[0] == float(real["salary"].iloc[0].replace(",", ""))
    assert list(data.checked["synthetic"].columns) == ["nameFirst", "nameLast", "notes"]
    report = evaluate(real, synthetic, schema, metrics=["crp", "dcr", "reproduced_identifiers"], holdout=holdout)
    assert not report.errors
    doc = json.loads(report.to_json())
    said = {entry["column"]: (entry["status"], entry["kind"]) for entry in doc["columns"]}
    assert said == {"nameFirst": ("checked", "identifier"), "nameLast": ("checked", "identifier"),
                    "birthDate": ("analysed", "date"), "debut": ("analysed", "date"),
                    "salary": ("analysed", "numerical"), "bats": ("analysed", "categorical"),
                    "notes": ("checked", "text"), "empty": ("left out", None)}
    assert doc["metrics"]["reproduced_identifiers"]["applicable"]


def test_a_date_that_does_not_read_is_named_with_its_fix():
    real, synthetic = players(50, 1), players(50, 2)
    synthetic.loc[7, "birthDate"] = "31/02/1990"
    schema = Schema({"birthDate": "date", "bats": "categorical"})
    with pytest.raises(SchemaError, match=r"Column 'birthDate' is declared a date but synthetic holds '31/02/1990' "
                                          r"in row 8") as err:
        prepare(real, synthetic, schema)
    assert "declare it categorical" in str(err.value) and err.value.column == "birthDate"


def test_a_kind_changed_after_inference_wins():
    schema = Schema({"born": "date", "name": "identifier", "x": "numerical"})
    assert (schema.types, schema.dates, schema.identifiers) == ({"born": "numerical", "x": "numerical"}, ["born"],
                                                                ["name"])
    changed = schema.with_changes(types={"born": "categorical", "name": "categorical", "x": "numerical"})
    assert changed.dates == [] and changed.identifiers == [] and changed.kind("name") == "categorical"
    assert Schema.from_dict(schema.to_dict()) == schema


def test_columns_left_out_on_request_say_how_to_include_them():
    schema = infer_schema(pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}), exclude=["b"])
    entry = column_report(["a", "b"], schema)[1]
    assert (entry.status, entry.reason) == ("left out", "left out on request")
    assert "--categorical" in entry.include and "Configure page" in entry.include


@pytest.mark.slow
def test_the_command_line_takes_the_new_kinds(tmp_path):
    real, synthetic = players(80, 1), players(80, 2)
    real.to_csv(tmp_path / "real.csv", index=False)
    synthetic.to_csv(tmp_path / "synth.csv", index=False)
    proc = subprocess.run([sys.executable, "-m", "privcore", "evaluate", "--real", "real.csv", "--synthetic",
                           "synth.csv", "--metrics", "crp", "--sensitive", "bats", "--text", "nameFirst",
                           "--identifier", "notes", "--exclude", "empty", "--date", "salary"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    # salary is not a date: the message names the column and the file
    assert proc.returncode == 2 and "Column 'salary' is declared a date" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "privcore", "evaluate", "--real", "real.csv", "--synthetic",
                           "synth.csv", "--metrics", "crp", "--sensitive", "bats", "--text", "nameFirst",
                           "--identifier", "notes", "--exclude", "empty"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    said = {e["column"]: e["kind"] for e in json.loads(proc.stdout)["columns"]}
    assert said["nameFirst"] == "text" and said["notes"] == "identifier" and said["empty"] is None
    assert "columns: Left out (1): empty: left out on request" in proc.stderr


def test_a_flag_written_in_several_ways_is_two_values():
    real = pd.DataFrame({"smoker": ["Yes", "yes", "NO", "no", None] * 10, "age": np.arange(50.0)})
    synthetic = pd.DataFrame({"smoker": ["YES", "No"] * 25, "age": np.arange(50.0)})
    guess = guess_column_type(real["smoker"])
    assert guess.type == "binary" and "several ways" in guess.note
    data = prepare(real, synthetic, infer_schema(real))
    assert set(data.real["smoker"]) == {"yes", "no", "(missing)"} and set(data.synthetic["smoker"]) == {"yes", "no"}
    # a flag with a third word is not folded: declared binary it is refused with the fix
    synthetic.loc[0, "smoker"] = "maybe"
    with pytest.raises(SchemaError, match="declared binary but takes 7 values"):
        prepare(real, synthetic, Schema({"smoker": "binary", "age": "numerical"}))
