"""The SDV generators against the real SDV package (requirements-dev.txt installs it), with tiny settings.

An API change of SDV (what ``fit`` takes, what ``sample`` returns, how metadata is made) fails here. The
missing-SDV message is tested by hiding the package (``sys.modules["sdv"] = None``).
"""

from __future__ import annotations

import re
import sys

import numpy as np
import pandas as pd
import pytest

from privcore.cli.audit import list_generators_text
from privcore.generators import GeneratorError, GeneratorSettingError, SDVAdapter, get_generator_spec, make_generator
from privcore.generators.sdv import SDV_SPECS, import_sdv, sdv_metadata

pytest.importorskip("sdv", reason="privcore[sdv] is installed by requirements-dev.txt")

TYPES = {"age": "numerical", "score": "numerical", "id": "numerical", "job": "categorical", "smoker": "binary",
         "sex": "binary"}
#: A few epochs and a small batch: seconds per fit, yet every step of SDV's fit and sample runs.
TINY = {"sdv_gaussian_copula": {}, "sdv_ctgan": {"epochs": 2, "batch_size": 20, "pac": 10},
        "sdv_tvae": {"epochs": 2, "batch_size": 20}}
INSTALL = "pip install 'privcore[sdv]'"


@pytest.fixture(scope="module")
def real() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 100
    return pd.DataFrame({
        "age": rng.integers(18, 90, n),
        "score": rng.normal(50, 10, n).round(2),
        "id": np.arange(1000, 1000 + n),  # unique values: SDV's detection alone would take it for a key
        "job": rng.choice(["nurse", "clerk", "farmer"], n),
        "smoker": rng.choice([True, False], n),
        "sex": rng.choice(["F", "M"], n),
    })


@pytest.fixture(scope="module", params=[spec.name for spec in SDV_SPECS])
def fitted(request, real):
    return request.param, make_generator(request.param, **TINY[request.param]).fit(real, TYPES)


def test_the_specs_are_registered_with_labels_and_defaults():
    assert [get_generator_spec(s.name).label for s in SDV_SPECS] == ["Gaussian copula (SDV)", "CTGAN (SDV)",
                                                                    "TVAE (SDV)"]
    ctgan = {p.name: p.default for p in get_generator_spec("sdv_ctgan").params}
    assert ctgan["epochs"] == 300 and ctgan["batch_size"] == 500 and ctgan["pac"] == 10
    assert {p.name for p in get_generator_spec("sdv_tvae").params} >= {"epochs", "batch_size", "embedding_dim"}
    assert all(s.installed and s.install == INSTALL for s in SDV_SPECS)


@pytest.mark.slow
def test_each_fits_and_samples_the_training_columns_and_dtypes(fitted, real):
    name, gen = fitted
    out = gen.sample(60, seed=3)
    assert list(out.columns) == list(real.columns) and (out.dtypes == real.dtypes).all(), (name, out.dtypes)
    assert out.index.equals(pd.RangeIndex(60))
    assert set(out["job"]) <= set(real["job"]) and set(out["sex"]) <= {"F", "M"}
    assert out["id"].nunique() > 1  # modelled as a number, not dropped as a key and regenerated


def test_one_seed_gives_one_table_and_another_seed_another(fitted, real):
    name, gen = fitted
    first = gen.sample(50, seed=7)
    pd.testing.assert_frame_equal(first, gen.sample(50, seed=7))
    assert not first.equals(gen.sample(50, seed=8)), name
    # Refitting on the same table trains the same model (the fit's seed comes from the table's content).
    again = make_generator(name, **TINY[name]).fit(real, TYPES)
    pd.testing.assert_frame_equal(first, again.sample(50, seed=7))


def test_the_metadata_takes_privcore_types_not_detection(real):
    sdv = import_sdv("test")
    types = {**TYPES, "age": "categorical"}
    columns = sdv_metadata(sdv.Metadata, real, types).to_dict()["tables"]["privcore"]["columns"]
    assert {c: columns[c]["sdtype"] for c in real.columns} == {
        "age": "categorical", "score": "numerical", "id": "numerical", "job": "categorical",
        "smoker": "boolean", "sex": "categorical"}  # SDV's boolean takes True/False only: F/M stays categorical
    assert "primary_key" not in sdv_metadata(sdv.Metadata, real, types).to_dict()["tables"]["privcore"]


def test_ctgan_batch_size_must_suit_pac():
    with pytest.raises(GeneratorSettingError, match=r"multiple of pac \(10\); got 25. Try 30"):
        make_generator("sdv_ctgan", batch_size=25)
    with pytest.raises(GeneratorSettingError, match="even"):
        make_generator("sdv_ctgan", batch_size=21, pac=3)
    with pytest.raises(GeneratorSettingError, match="epochs"):
        make_generator("sdv_tvae", epochs=0)
    assert "pac" in repr(make_generator("sdv_ctgan", batch_size=30, pac=5))


@pytest.mark.filterwarnings("ignore:We strongly recommend saving the metadata")
def test_the_adapter_speaks_sdv_2(real):
    from sdv.metadata import Metadata
    from sdv.single_table import GaussianCopulaSynthesizer

    metadata = Metadata.detect_from_dataframes({"real": real}, infer_keys=None)
    gen = SDVAdapter(lambda: GaussianCopulaSynthesizer(metadata), name="copula")
    out = gen.fit(real, TYPES).sample(40, seed=1)
    assert list(out.columns) == list(real.columns) and (out.dtypes == real.dtypes).all()
    pd.testing.assert_frame_equal(out, gen.sample(40, seed=1))
    assert not out.equals(gen.sample(40, seed=2))


def test_without_sdv_making_or_fitting_names_the_install_command(real, monkeypatch):
    built = make_generator("sdv_gaussian_copula")
    monkeypatch.setitem(sys.modules, "sdv", None)  # what Python does for a package that is not there
    for spec in SDV_SPECS:
        assert not get_generator_spec(spec.name).installed
        with pytest.raises(GeneratorError, match=f"{spec.name} needs SDV.*{re.escape(INSTALL)}"):
            make_generator(spec.name, **TINY[spec.name])
    with pytest.raises(GeneratorError, match=re.escape(INSTALL)) as caught:
        built.fit(real, TYPES)
    assert "\n" not in str(caught.value)
    assert f"not installed: {INSTALL}" in list_generators_text()
