"""The shared-model audit's fits as Dask tasks (issue 22): a 2-worker LocalCluster gives the JSON of the run in
this process, and ``--dask`` is checked before any work."""

from __future__ import annotations

import json

import pytest

distributed = pytest.importorskip("distributed")

from privcore.audit import AuditError  # noqa: E402
from privcore.audit.shared import SharedSettings, audit_shared  # noqa: E402
from privcore.audit.tasks import GeneratorFactory  # noqa: E402
from privcore.cli.main import main  # noqa: E402
from privcore.data.schema import Schema  # noqa: E402
from privcore.demo import load_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(180)

TINY = SharedSettings(models=8, records=40)


@pytest.fixture(scope="module")
def adult():
    demo = load_scenario("fresh_sample", n=300)
    return demo.real, Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)


def strip(document):
    return {k: v for k, v in document.items() if k not in ("seconds", "timings")}


@pytest.mark.slow
def test_a_two_worker_cluster_gives_the_json_of_one_process(adult, dask_client):
    real, schema = adult
    here = audit_shared(real, None, schema, stronger=False,
                        settings=TINY, make=GeneratorFactory("independent_histograms"))
    progress = []
    there = audit_shared(real, None, schema, stronger=False,
                         settings=TINY, make=GeneratorFactory("independent_histograms"),
                         cluster=dask_client, progress=lambda fraction, message: progress.append(fraction))
    assert strip(there.to_dict()) == strip(here.to_dict())
    assert progress[-1] == 1.0 and progress == sorted(progress)
    assert dask_client.status == "running"  # a Client given by the caller stays open


def test_processes_and_a_cluster_together_are_refused(adult):
    real, schema = adult
    with pytest.raises(AuditError, match="not both"):
        audit_shared(real, None, schema, stronger=False,
                     settings=TINY, make=GeneratorFactory("independent_histograms"), workers=2,
                     cluster="local:2")


@pytest.mark.parametrize("extra, message", [
    (["--dask", "local:0"], "--dask must be a scheduler address"),
    (["--dask", "somewhere:8786"], "--dask must be a scheduler address"),
    (["--dask", "local:2", "--workers", "2"], "either --dask or --workers 2"),
])
def test_the_cli_refuses_a_bad_dask_option_before_reading_tables(tmp_path, capsys, extra, message):
    code = main(["audit", "--real", str(tmp_path / "missing.csv"), "--generator", "independent_histograms",
                 "--design", "shared", *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.slow
def test_the_cli_runs_the_fits_on_a_local_cluster(tmp_path, capsys):
    outputs = {}
    for name, extra in (("alone", []), ("cluster", ["--dask", "local:2"])):
        out = tmp_path / f"{name}.json"
        code = main(["audit", "--demo", "exact_copy", "--generator", "independent_histograms", "--design", "shared",
                     "--models", "8", "--records", "40", "--json", str(out), "--quiet", *extra])
        assert code == 0, capsys.readouterr().err[-2000:]
        outputs[name] = strip(json.loads(out.read_text()))
    assert outputs["cluster"] == outputs["alone"]
