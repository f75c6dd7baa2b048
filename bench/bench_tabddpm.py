"""TabDDPM (``tabddpm``) with its default settings on 1,000 Adult rows: one fit, a sample of 1,000 rows, the
per-record loss of the 1,000 training rows.

The rows are those of ``bench_torch_generators.py`` and ``bench_audit_generators.py`` (``random_state=0``), the
size of an audit's training set. The defaults were chosen so that the fit takes about a minute on 2 CPU cores;
this measures it, with the machine's load average beside it (other jobs slow torch down). The first fit in a
process pays torch's and scikit-learn's imports, so a small fit runs first and is reported apart.

Usage: ``python bench/bench_tabddpm.py [--out bench/results/tabddpm.json] [--gpu 0|1]`` (no ``--gpu``: CUDA when
torch sees a GPU, as the generator's default).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
ROWS = 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "tabddpm.json")
    parser.add_argument("--gpu", type=int, choices=(0, 1), help="0 the CPU, 1 the GPU; default: the GPU if any")
    args = parser.parse_args()

    import numpy as np
    import torch

    from privcore.demo import ADULT_TYPES, load_adult
    from privcore.generators import get_generator_spec, make_generator

    settings = {} if args.gpu is None else {"gpu": args.gpu}
    training = load_adult().sample(ROWS, random_state=0).reset_index(drop=True)
    began = time.perf_counter()
    make_generator("tabddpm", steps=5, **settings).fit(training.iloc[:100], dict(ADULT_TYPES)).sample(10, seed=0)
    warm = time.perf_counter() - began

    generator = make_generator("tabddpm", **settings)
    began = time.perf_counter()
    generator.fit(training, dict(ADULT_TYPES))
    fitted = time.perf_counter()
    sample = generator.sample(ROWS, seed=0)
    sampled = time.perf_counter()
    losses = generator.per_record_loss(training)
    scored = time.perf_counter()
    result = {
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "load_average": os.getloadavg(),
                    "torch": torch.__version__, "device": generator._device,
                    "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None},
        "settings": {p.name: getattr(generator, p.name, None) for p in get_generator_spec("tabddpm").params
                     if p.name != "gpu"} | {"device": generator.device},
        "rows": ROWS, "first_small_fit_seconds": round(warm, 2),
        "fit_seconds": round(fitted - began, 2), "sample_seconds": round(sampled - fitted, 2),
        "per_record_loss_seconds": round(scored - sampled, 2),
        "final_losses": {"gaussian": round(float(generator.losses[-100:, 0].mean()), 4),
                         "multinomial": round(float(generator.losses[-100:, 1].mean()), 4)},
        "sample_rows": len(sample), "mean_per_record_loss": round(float(np.mean(losses)), 4),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
