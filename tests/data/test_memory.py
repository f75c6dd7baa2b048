"""Memory limits (issue 11): tables whose encoded form would exceed the budget are refused before encoding,
with the estimate and the limit in the message, in the API, the CLI and the dashboard."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from privcore import evaluate
from privcore.base.errors import InputError
from privcore.data.memory import (
    BUDGET_VARIABLE,
    BYTES_PER_VALUE,
    WORKING_COPIES,
    MemoryBudgetError,
    check_memory,
    encoded_columns,
    estimate_bytes,
    machine_memory,
    memory_budget,
    parse_size,
)
from privcore.data.schema import Schema


def table(n: int, categories: int = 3, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(18, 90, n).astype(float),
        "sex": rng.choice(["F", "M"], n),
        "zip": [f"z{i}" for i in rng.integers(0, categories, n)],
    })


def test_encoded_columns_count_numbers_binaries_and_every_category_of_all_tables():
    real = pd.DataFrame({"age": [1.0, 2.0], "sex": ["F", "M"], "zip": ["a", "b"]})
    synthetic = pd.DataFrame({"age": [3.0, 4.0], "sex": ["F", "F"], "zip": ["c", "d"]})
    schema = Schema(types={"age": "numerical", "sex": "binary", "zip": "categorical"})
    width, widest, count = encoded_columns({"real": real, "synthetic": synthetic}, schema)
    assert (width, widest, count) == (1 + 1 + 4, "zip", 4)
    needed, rows, width = estimate_bytes({"real": real, "synthetic": synthetic, "holdout": None}, schema)
    assert (rows, width) == (4, 6)
    assert needed == 4 * 6 * BYTES_PER_VALUE * WORKING_COPIES


def test_check_memory_refuses_with_the_estimate_the_budget_and_advice():
    real, synthetic = table(1000, categories=400), table(1000, categories=400, seed=1)
    schema = Schema(types={"age": "numerical", "sex": "binary", "zip": "categorical"})
    needed, rows, width = estimate_bytes({"real": real, "synthetic": synthetic}, schema)
    check_memory({"real": real, "synthetic": synthetic}, schema, budget=needed)  # exactly at the budget: fine
    with pytest.raises(MemoryBudgetError) as caught:
        check_memory({"real": real, "synthetic": synthetic}, schema, budget=needed - 1)
    message = str(caught.value)
    assert f"{rows:,} rows × {width:,} encoded columns" in message
    assert "more than the memory budget" in message and "'zip'" in message
    assert isinstance(caught.value, InputError)


def test_evaluate_refuses_before_encoding_under_a_small_budget(monkeypatch):
    monkeypatch.setenv(BUDGET_VARIABLE, "10KB")
    real, synthetic = table(500), table(500, seed=1)
    with pytest.raises(MemoryBudgetError, match=r"more than the memory budget of 9\.8 KB \(set by PRIVCORE"):
        evaluate(real, synthetic, metrics="dcr")
    monkeypatch.setenv(BUDGET_VARIABLE, "1GB")
    assert evaluate(real, synthetic, metrics="dcr")["dcr"].applicable


def test_the_cli_exits_2_with_the_message(tmp_path):
    real, synthetic = tmp_path / "real.csv", tmp_path / "synthetic.csv"
    table(300).to_csv(real, index=False)
    table(300, seed=1).to_csv(synthetic, index=False)
    done = subprocess.run([sys.executable, "-m", "privcore", "evaluate", "--real", str(real), "--synthetic",
                           str(synthetic), "--metrics", "dcr"], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, BUDGET_VARIABLE: "1KB"})
    assert done.returncode == 2, done.stderr
    assert "memory budget" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(("text", "size"), [("8GB", 8 * 1000**3), ("512 MiB", 512 * 1024**2), ("2048", 2048),
                                            ("1.5g", int(1.5 * 1024**3)), ("10 kb", 10_000)])
def test_parse_size(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "-1GB", "0", "5 parsecs"])
def test_a_bad_budget_setting_is_named(text):
    with pytest.raises(InputError, match=BUDGET_VARIABLE):
        parse_size(text)


def test_default_budget_is_half_the_machine(monkeypatch):
    monkeypatch.delenv(BUDGET_VARIABLE, raising=False)
    total = machine_memory()
    assert total is not None and total > 100 * 1024**2
    budget, source = memory_budget()
    assert budget == total // 2 and "half of this machine" in source
