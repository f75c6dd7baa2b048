"""The shared spaces of metrics.md §0: the FAMD projection Φk (checked against prince) and E (by hand)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import prince
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from privcore.base import NotApplicable
from privcore.data.prepare import MISSING, prepare
from privcore.data.schema import Schema
from privcore.engine.encoding import EuclideanSpace, FAMDProjection


def _prepared(real, synthetic, types):
    schema = Schema(dict(types))
    data = prepare(real, synthetic, schema)
    return data, schema


@st.composite
def mixed_tables(draw):
    """A random real table with 1–3 numerical and 1–3 categorical/binary columns, and a second table."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(8, 40))
    n_num = draw(st.integers(1, 3))
    n_cat = draw(st.integers(1, 3))
    rng = np.random.default_rng(seed)
    types, real, other = {}, {}, {}
    for j in range(n_num):
        types[f"n{j}"] = "numerical"
        real[f"n{j}"] = rng.normal(size=n) * rng.uniform(0.5, 20)
        other[f"n{j}"] = rng.normal(size=n + 3) * 5
    for j in range(n_cat):
        levels = list("pqrs")[: int(rng.integers(2, 5))]
        types[f"c{j}"] = "binary" if len(levels) == 2 else "categorical"
        values = rng.choice(levels, size=n)
        values[: len(levels)] = levels  # every level present, so no column is constant
        real[f"c{j}"] = values
        other[f"c{j}"] = rng.choice(levels, size=n + 3)
    return pd.DataFrame(real), pd.DataFrame(other), types


def _singular_gap_ok(projection: FAMDProjection, data) -> bool:
    """The first k components are well defined: no (near-)repeated singular value up to k + 1."""
    coded = projection._code(data.real)
    s = np.linalg.svd((coded - coded.mean(axis=0)) / math.sqrt(len(data.real)), compute_uv=False)
    k = projection.n_components
    s = np.r_[s, 0.0][: k + 1]
    return bool(np.min(-np.diff(s)) > 1e-3 * s[0])


# (a) coordinates of Y equal prince's FAMD(engine="scipy") up to column signs.
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_tables())
def test_phi_of_real_equals_prince_up_to_signs(tables):
    real, _, types = tables
    data, schema = _prepared(real, real, types)
    projection = FAMDProjection(data.real, schema)
    assume(_singular_gap_ok(projection, data))
    ours = projection.transform(data.real)
    k = projection.n_components
    reference = prince.FAMD(n_components=k, engine="scipy").fit(data.real).row_coordinates(data.real).to_numpy()
    assert ours.shape == reference.shape == (len(real), k)
    signs = np.sign(np.sum(ours * reference, axis=0))
    np.testing.assert_allclose(ours, reference * signs, rtol=0, atol=1e-8)


def test_phi_of_real_equals_prince_on_a_fixed_table():
    rng = np.random.default_rng(3)
    real = pd.DataFrame(
        {
            "age": rng.integers(18, 90, 50).astype(float),
            "hours": rng.normal(40, 10, 50),
            "job": rng.choice(["a", "b", "c", "d"], 50),
            "sex": rng.choice(["f", "m"], 50),
        }
    )
    types = {"age": "numerical", "hours": "numerical", "job": "categorical", "sex": "binary"}
    data, schema = _prepared(real, real, types)
    projection = FAMDProjection(data.real, schema)
    # r = 2 numerical + (4 + 2) categories − 2 categorical columns = 6 -> k = min(5, 6) = 5
    assert projection.n_components == 5
    ours = projection.transform(data.real)
    reference = prince.FAMD(n_components=5, engine="scipy").fit(data.real).row_coordinates(data.real).to_numpy()
    signs = np.sign(np.sum(ours * reference, axis=0))
    np.testing.assert_allclose(ours, reference * signs, rtol=0, atol=1e-8)


# (b) an exact copy of a real record projects exactly (bit for bit) onto it, in a table of any size.
@settings(max_examples=25, deadline=None)
@given(mixed_tables(), st.integers(0, 2**32 - 1))
def test_exact_copies_project_exactly_onto_the_real_record(tables, seed):
    real, other, types = tables
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(real), size=int(rng.integers(1, 2 * len(real))))
    synthetic = pd.concat([real.iloc[picks], other], ignore_index=True).sample(frac=1.0, random_state=seed)
    synthetic = synthetic.reset_index(drop=True)
    data, schema = _prepared(real, synthetic, types)
    projection = FAMDProjection(data.real, schema)
    real_phi = projection.transform(data.real)
    synthetic_phi = projection.transform(data.synthetic)
    for i, row in data.real.iterrows():
        copies = (data.synthetic == row).all(axis=1).to_numpy()
        assert np.array_equal(synthetic_phi[copies], np.repeat(real_phi[[i]], copies.sum(), axis=0))
    # a one-row table too (BLAS would take a different kernel for it)
    assert np.array_equal(projection.transform(data.real.iloc[[len(real) - 1]]), real_phi[[-1]])


def test_exact_copy_has_dcr_distance_zero():
    from privcore import evaluate

    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.normal(size=30), "y": rng.normal(size=30) * 100, "c": rng.choice(list("abc"), 30)})
    synthetic = pd.concat([real.iloc[[4, 17]], real.iloc[:5].assign(x=lambda d: d["x"] + 0.5)], ignore_index=True)
    report = evaluate(real, synthetic, metrics="dcr", strict=True)
    distance = report["dcr"].details["distance"]
    assert distance[4] == 0.0 and distance[17] == 0.0
    assert np.all(np.delete(distance, [4, 17]) > 0)


@settings(max_examples=20, deadline=None)
@given(mixed_tables(), st.integers(0, 2**32 - 1))
def test_phi_fit_does_not_depend_on_the_real_row_order(tables, seed):
    # Only HidR may depend on row order (issue 3); the fit sorts Y's rows first, so even tied singular
    # values (an arbitrary choice of axes) are resolved the same way for any order of the same records.
    real, other, types = tables
    shuffled = real.sample(frac=1.0, random_state=seed % 2**31).reset_index(drop=True)
    data, schema = _prepared(real, other, types)
    data_shuffled, _ = _prepared(shuffled, other, types)
    first, second = FAMDProjection(data.real, schema), FAMDProjection(data_shuffled.real, schema)
    np.testing.assert_array_equal(first.components, second.components)
    np.testing.assert_array_equal(first.transform(data.synthetic), second.transform(data_shuffled.synthetic))


# (c) another table is coded with Y's means, standard deviations and proportions.
def test_new_table_is_coded_with_the_real_tables_statistics():
    real = pd.DataFrame({"a": [1.0, 2.0, 3.0], "c": ["x", "x", "y"]})
    synthetic = pd.DataFrame({"a": [4.0, 2.0], "c": ["y", "y"]})
    data, schema = _prepared(real, synthetic, {"a": "numerical", "c": "categorical"})
    projection = FAMDProjection(data.real, schema)
    # Y: mean(a) = 2, population std = sqrt(2/3); p(x) = 2/3, p(y) = 1/3.
    # A row is coded [(a − 2)/sqrt(2/3), (1[c=x] − 2/3)/sqrt(2/3), (1[c=y] − 1/3)/sqrt(1/3)];
    # Y's coded columns have mean 0, so the coordinates are coded @ components.T.
    s, px, py = math.sqrt(2 / 3), 2 / 3, 1 / 3
    coded = np.array(
        [
            [(4 - 2) / s, (0 - px) / math.sqrt(px), (1 - py) / math.sqrt(py)],
            [(2 - 2) / s, (0 - px) / math.sqrt(px), (1 - py) / math.sqrt(py)],
        ]
    )
    np.testing.assert_allclose(projection.transform(data.synthetic), coded @ projection.components.T, atol=1e-12)
    # prince's row_coordinates recomputes the proportions from the new table (here p(y) = 1): different.
    famd = prince.FAMD(n_components=projection.n_components, engine="scipy").fit(data.real)
    theirs = famd.row_coordinates(data.synthetic).to_numpy()
    assert not np.allclose(np.abs(theirs), np.abs(projection.transform(data.synthetic)), atol=1e-3)


def test_unseen_category_is_coded_as_none_of_the_real_modalities():
    real = pd.DataFrame({"a": [1.0, 2.0, 3.0, 5.0], "c": ["x", "x", "y", "y"]})
    synthetic = pd.DataFrame({"a": [1.0], "c": ["new"]})
    data, schema = _prepared(real, synthetic, {"a": "numerical", "c": "categorical"})
    projection = FAMDProjection(data.real, schema)
    # mean 2.75, std sqrt(((1.75)^2 + 0.75^2 + 0.25^2 + 2.25^2)/4) = sqrt(2.1875); p(x) = p(y) = 1/2
    s = math.sqrt(2.1875)
    coded = np.array([[(1 - 2.75) / s, -0.5 / math.sqrt(0.5), -0.5 / math.sqrt(0.5)]])
    np.testing.assert_allclose(projection.transform(data.synthetic), coded @ projection.components.T, atol=1e-12)


# (d) default k = min(5, r), r = numerical columns + categories − categorical columns, capped at |Y| − 1.
@pytest.mark.parametrize(
    "n_rows, n_num, levels, expected",
    [
        (20, 1, [3, 2], 4),  # r = 1 + (3 + 2) − 2 = 4
        (20, 2, [4, 3], 5),  # r = 2 + 7 − 2 = 7 -> 5
        (20, 1, [2], 2),  # r = 1 + 2 − 1 = 2
        (4, 2, [4, 3], 3),  # r = 7, min(5, 7) = 5, capped at |Y| − 1 = 3
        (3, 1, [2], 2),  # r = 2 = |Y| − 1
    ],
)
def test_default_number_of_components(n_rows, n_num, levels, expected):
    rng = np.random.default_rng(0)
    columns, types = {}, {}
    for j in range(n_num):
        columns[f"n{j}"] = rng.normal(size=n_rows)
        types[f"n{j}"] = "numerical"
    for j, n_levels in enumerate(levels):
        values = [f"v{i % n_levels}" for i in range(n_rows)]
        columns[f"c{j}"] = values
        types[f"c{j}"] = "binary" if n_levels == 2 else "categorical"
    real = pd.DataFrame(columns)
    data, schema = _prepared(real, real, types)
    projection = FAMDProjection(data.real, schema)
    assert projection.n_components == expected
    assert projection.transform(data.real).shape == (n_rows, expected)


def test_user_k_is_used_and_capped():
    rng = np.random.default_rng(1)
    real = pd.DataFrame({"a": rng.normal(size=20), "b": rng.normal(size=20), "c": rng.choice(list("xyz"), 20)})
    data, schema = _prepared(real, real, {"a": "numerical", "b": "numerical", "c": "categorical"})
    assert FAMDProjection(data.real, schema, n_components=2).n_components == 2
    # r = 2 + 3 − 1 = 4
    assert FAMDProjection(data.real, schema, n_components=9).n_components == 4


def test_missing_category_counts_as_a_modality_in_r():
    real = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "c": ["x", None, "y", "x", None, "y"]})
    data, schema = _prepared(real, real, {"a": "numerical", "c": "categorical"})
    assert MISSING in set(data.real["c"])
    # r = 1 + 3 (x, y, missing) − 1 = 3
    assert FAMDProjection(data.real, schema).rank == 3


# (e) columns constant in Y are dropped.
def test_constant_columns_are_dropped_from_phi():
    rng = np.random.default_rng(2)
    base = pd.DataFrame({"a": rng.normal(size=25), "c": rng.choice(list("xyz"), 25)})
    with_constants = base.assign(k=7.0, s="same")
    types = {"a": "numerical", "c": "categorical"}
    data, schema = _prepared(base, base, types)
    data_k, schema_k = _prepared(with_constants, with_constants, {**types, "k": "numerical", "s": "categorical"})
    plain = FAMDProjection(data.real, schema)
    dropped = FAMDProjection(data_k.real, schema_k)
    assert dropped.dropped_constant == ["k", "s"]
    assert dropped.rank == plain.rank == 3
    np.testing.assert_array_equal(dropped.transform(data_k.real), plain.transform(data.real))


def test_constant_columns_are_dropped_from_e():
    real = pd.DataFrame({"a": [1.0, 2.0], "k": [3.0, 3.0], "s": ["u", "u"]})
    synthetic = pd.DataFrame({"a": [1.0], "k": [9.0], "s": ["v"]})
    data, schema = _prepared(real, synthetic, {"a": "numerical", "k": "numerical", "s": "categorical"})
    space = EuclideanSpace(data.real, [data.synthetic], schema)
    assert space.dropped_constant == ["k", "s"]
    assert space.dim == 1


# E by hand.
def test_euclidean_space_by_hand():
    real = pd.DataFrame({"a": [0.0, 5.0, 10.0], "c": ["x", "y", "x"], "b": ["no", "yes", "no"]})
    synthetic = pd.DataFrame({"a": [15.0, 5.0], "c": ["z", "x"], "b": ["yes", "no"]})
    data, schema = _prepared(real, synthetic, {"a": "numerical", "c": "categorical", "b": "binary"})
    space = EuclideanSpace(data.real, [data.synthetic], schema)
    # a: (a − min_Y)/(max_Y − min_Y) = a/10 (15 -> 1.5, outside [0, 1] is fine);
    # c: one-hot over the union {x, y, z} of both tables; b: one column, 1 = "yes" (the larger value).
    expected_real = np.array(
        [
            [0.0, 1, 0, 0, 0],
            [0.5, 0, 1, 0, 1],
            [1.0, 1, 0, 0, 0],
        ]
    )
    expected_synthetic = np.array(
        [
            [1.5, 0, 0, 1, 1],
            [0.5, 1, 0, 0, 0],
        ]
    )
    np.testing.assert_array_equal(space.transform(data.real), expected_real)
    np.testing.assert_array_equal(space.transform(data.synthetic), expected_synthetic)
    assert [(b.column, b.start, b.stop) for b in space.blocks] == [("a", 0, 1), ("c", 1, 4), ("b", 4, 5)]
    # d_E between real row 1 and synthetic row 0: sqrt(1^2 + 1 + 1 + 0) = sqrt(3)
    diff = space.transform(data.real)[1] - space.transform(data.synthetic)[0]
    assert math.isclose(float(np.sqrt(diff @ diff)), math.sqrt(3))


def test_binary_with_missing_values_is_one_hot_in_e():
    real = pd.DataFrame({"a": [0.0, 1.0, 2.0], "b": ["no", None, "yes"]})
    data, schema = _prepared(real, real, {"a": "numerical", "b": "binary"})
    space = EuclideanSpace(data.real, [data.synthetic], schema)
    # levels sorted: "(missing)", "no", "yes"
    np.testing.assert_array_equal(space.transform(data.real)[:, 1:], np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]]))


def test_a_huge_one_hot_space_is_refused_with_the_column_to_blame(monkeypatch):
    import privcore.engine.encoding as encoding
    from privcore import evaluate
    from privcore.data.schema import Schema as _Schema

    monkeypatch.setattr(encoding, "MAX_ENCODED_BYTES", 10_000)
    real = pd.DataFrame({"id": [f"p{i}" for i in range(200)], "a": np.arange(200.0) % 13})
    report = evaluate(real, real.copy(), _Schema({"id": "categorical", "a": "numerical"}),
                      metrics="crp,cvp,dcr", strict=True)
    assert report["crp"].applicable  # exact matching needs no distance space
    for metric in ("cvp", "dcr"):
        assert not report[metric].applicable
        assert "'id' has 200 categories" in report[metric].reason


# The fit factors R of the coded matrix's QR instead of the tall matrix (issue 24, speed): LAPACK's own SVD of a
# tall matrix takes that path, so the components must be the same bits as the plain SVD's, not merely close.
def _assert_fit_is_the_plain_svd(projection: FAMDProjection, real: pd.DataFrame) -> None:
    import scipy.linalg
    from threadpoolctl import threadpool_limits

    coded = projection._code(real.iloc[projection._canonical_order(real)])
    with threadpool_limits(limits=1, user_api="blas"):
        _, singular, vt = scipy.linalg.svd((coded - coded.mean(axis=0)) / np.sqrt(len(coded)), full_matrices=False)
    k = projection.n_components
    assert np.array_equal(projection.components, vt[:k])
    assert np.array_equal(projection.eigenvalues, singular[:k] ** 2)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_tables())
def test_phi_fit_equals_the_plain_svd_bit_for_bit(tables):
    real, other, types = tables
    data, schema = _prepared(real, other, types)
    _assert_fit_is_the_plain_svd(FAMDProjection(data.real, schema), data.real)


def test_phi_fit_equals_the_plain_svd_bit_for_bit_on_a_large_table():
    rng = np.random.default_rng(5)
    n = 3000
    real = pd.DataFrame({"a": rng.normal(size=n), "b": rng.exponential(size=n),
                         "c": rng.choice(list("abcdefgh"), n), "d": rng.choice(["x", "y"], n)})
    types = {"a": "numerical", "b": "numerical", "c": "categorical", "d": "binary"}
    data, schema = _prepared(real, real.iloc[::-1].reset_index(drop=True), types)
    projection = FAMDProjection(data.real, schema)
    _assert_fit_is_the_plain_svd(projection, data.real)
    # The transform sums column by column in a fixed order: the same bits as that sum written out.
    centred = projection._code(data.synthetic) - projection._centre
    expected = np.zeros((len(centred), projection.n_components))
    for j in range(centred.shape[1]):
        expected += centred[:, j : j + 1] * projection.components[:, j]
    assert np.array_equal(projection.transform(data.synthetic), expected)


# A wide coding (a code of a thousand values or more) is fitted from its covariance matrix (issue 56, cost): the same
# projection as the SVD of the rows × coordinates coding, up to column signs, in distances to rounding.
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_tables(), st.integers(1, 5))
def test_a_wide_coding_fitted_from_its_covariance_is_the_svds_projection(tables, k):
    import privcore.engine.encoding as encoding

    real, other, types = tables
    data, schema = _prepared(real, other, types)
    dense = FAMDProjection(data.real, schema, k)
    assume(_singular_gap_ok(dense, data))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(encoding, "WIDE_CODING", 1)
        wide = FAMDProjection(data.real, schema, k)
    assert wide.wide and not dense.wide
    np.testing.assert_allclose(wide.eigenvalues, dense.eigenvalues, rtol=1e-9, atol=1e-12)
    assert wide.explained_inertia == pytest.approx(dense.explained_inertia, rel=1e-9)
    for table in (data.real, data.synthetic):
        ours, reference = wide.transform(table), dense.transform(table)
        signs = np.sign(np.sum(ours * reference, axis=0))
        np.testing.assert_allclose(ours, reference * signs, rtol=0, atol=1e-8)


def test_a_wide_coding_puts_copies_on_their_real_record_and_unseen_codes_nowhere_in_particular(monkeypatch):
    import privcore.engine.encoding as encoding

    rng = np.random.default_rng(4)
    n = 2000
    real = pd.DataFrame({"zip": [f"z{v:04d}" for v in rng.integers(0, 4000, n)], "age": rng.integers(18, 90, n) * 1.0,
                         "sex": rng.choice(["f", "m"], n)})
    schema = Schema({"zip": "categorical", "age": "numerical", "sex": "binary"})
    wide = FAMDProjection(real, schema)
    assert wide.wide and real["zip"].nunique() > encoding.WIDE_CODING
    # Only two eigenvalues lie above the postcode's ~1,590 equal ones: dsyevr finds none of the five, dsyevd does.
    assert wide.components.shape[0] == 5 and wide.tied_axes
    assert np.all(wide.eigenvalues[2:] == pytest.approx(1.0)) and wide.eigenvalues[1] > 1.5
    copies = real.iloc[[3, 999, 3]].reset_index(drop=True)
    assert np.array_equal(wide.transform(copies), wide.transform(real)[[3, 999, 3]])
    unseen = copies.assign(zip="never seen")
    with monkeypatch.context() as patch:
        patch.setattr(encoding, "WIDE_CODING", 10**9)
        dense = FAMDProjection(real, schema)
    signs = np.sign(np.sum(wide.transform(real) * dense.transform(real), axis=0))
    np.testing.assert_allclose(wide.transform(unseen), dense.transform(unseen) * signs, rtol=0, atol=1e-8)


def test_a_coding_too_wide_for_its_covariance_is_refused_with_the_column_to_blame(monkeypatch):
    import privcore.engine.encoding as encoding

    monkeypatch.setattr(encoding, "WIDE_CODING", 10)
    monkeypatch.setattr(encoding, "MAX_ENCODED_BYTES", 20 * 20 * 8)
    real = pd.DataFrame({"code": [f"c{i % 40}" for i in range(80)], "a": np.arange(80.0)})
    with pytest.raises(NotApplicable, match="'code' has 40 categories"):
        FAMDProjection(real, Schema({"code": "categorical", "a": "numerical"}))


def test_tied_famd_axes_are_said_on_the_projected_metrics():
    from privcore import evaluate

    rng = np.random.default_rng(4)
    n = 300
    real = pd.DataFrame({"zip": [f"z{v:04d}" for v in rng.integers(0, 4000, n)], "age": rng.integers(18, 90, n) * 1.0})
    schema = Schema({"zip": "categorical", "age": "numerical"})
    report = evaluate(real, real.sample(frac=1.0, random_state=1), schema, metrics="nndr,dcr,cvp", strict=True)
    for metric in ("nndr", "dcr"):
        assert any("ties with the next" in w for w in report[metric].warnings), report[metric].warnings
    assert not any("ties with the next" in w for w in report["cvp"].warnings)
    untied = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n) * 3, "c": rng.choice(list("xyz"), n)})
    report = evaluate(untied, untied.iloc[::-1], metrics="nndr", strict=True)
    assert not any("ties with the next" in w for w in report["nndr"].warnings)
