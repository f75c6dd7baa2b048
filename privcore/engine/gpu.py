"""GPU backend of the neighbour engine: the exact matrix path of :mod:`privcore.engine.neighbors` on an NVIDIA GPU.

Its results are identical to the CPU path's. Optional: ``pip install 'privcore[gpu]'`` (CuPy for CUDA 12); the device is
chosen by :func:`resolve_device`.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from privcore.base import InputError

#: The devices a caller may name.
DEVICES = ("auto", "cpu", "gpu")
#: ``"auto"`` takes the GPU from this many query × reference pairs (e.g. 14,000 × 14,000 rows): an H100
#: does 100,000 × 100,000 pairs in about 0.2 s, while starting CUDA and copying the tables costs a fixed
#: fraction of a second that a smaller pass on the CPU cores does not repay.
GPU_MIN_PAIRS = 2e8
#: Distances held at once per chunk on the GPU (2**27 float64 = 1 GiB), more than the CPU default because
#: device memory is large and long rows keep the GPU busy; lowered to fit the free device memory.
GPU_CHUNK_ELEMENTS = 2**27
#: Host threads feeding one GPU: the GPU runs their products one after another while the threads refine
#: earlier chunks' candidates exactly on the CPU cores.
GPU_THREADS = 4
#: Columns per group when the GPU finds top-two candidates: the minimum of each group of columns is one
#: read of the block, and only groups whose minimum lies under the threshold are looked at again.
GPU_GROUP = 64
#: Set to ``1`` to run the GPU code path with numpy as its array module (tests on machines without a GPU).
EMULATE_VARIABLE = "PRIVCORE_GPU_EMULATE"

_GPU_MISSING = ("install privcore[gpu] on a machine with an NVIDIA GPU, or use device='cpu' "
                "(--device cpu)")
#: The device of the evaluation running in this thread (set by :func:`using_device`).
_CURRENT: contextvars.ContextVar[str] = contextvars.ContextVar("privcore_device", default="auto")


def emulated() -> bool:
    """Whether :data:`EMULATE_VARIABLE` asks for the GPU code path on numpy."""
    return os.environ.get(EMULATE_VARIABLE, "").strip() == "1"


@functools.lru_cache(maxsize=1)
def _cuda_device_count() -> int:
    try:
        import cupy  # lazy: optional extra privcore[gpu]

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # no CuPy, no driver, no device: all mean "no GPU", never an error
        return 0


def gpu_available() -> bool:
    """Whether the GPU path can run: CuPy imports and sees at least one CUDA device (or it is emulated).

    Never raises; the answer about CuPy is looked up once per process.
    """
    return emulated() or _cuda_device_count() > 0


def check_device(device: Any) -> str:
    """``device`` if it is one of :data:`DEVICES`.

    Raises
    ------
    InputError
        For anything else, naming the valid values.

    Examples
    --------
    >>> check_device("gpu")
    'gpu'
    """
    if isinstance(device, str) and device.strip().lower() in DEVICES:
        return device.strip().lower()
    raise InputError(f"The device must be 'auto', 'cpu' or 'gpu' (got {device!r}); 'auto' uses a GPU only when "
                     "one is usable and the tables are large.")


def require_gpu() -> None:
    """Raise :class:`InputError` unless the GPU path can run (asked for explicitly with ``device='gpu'``)."""
    if not gpu_available():
        raise InputError(f"device='gpu' needs CuPy and an NVIDIA GPU, and none is usable here: {_GPU_MISSING}.")


def resolve_device(device: str | None, n_query: int, n_reference: int, dims: int = 1) -> str:
    """Where a neighbour pass of ``n_query`` × ``n_reference`` rows in ``dims`` columns runs: "cpu" or "gpu".

    Parameters
    ----------
    device : {"auto", "cpu", "gpu"} or None
        None: the device of the enclosing evaluation (:func:`using_device`), ``"auto"`` outside one.
    n_query, n_reference : int
        Rows of the two tables.
    dims : int
        Columns; without any, every distance is 0 and there is nothing to compute on a GPU.

    Returns
    -------
    str
        ``"gpu"`` for ``device="gpu"`` (with columns), and for ``"auto"`` when a GPU is usable and the pass
        has at least :data:`GPU_MIN_PAIRS` pairs; ``"cpu"`` otherwise.

    Raises
    ------
    InputError
        For an unknown device, or ``"gpu"`` where no GPU is usable.

    Notes
    -----
    device with :func:`privcore.evaluate`'s ``device=`` or the command line's ``--device``:

    - ``"cpu"``: never the GPU (the tested default path of CI);
    - ``"gpu"``: every matrix pass on the GPU; refused with an :class:`~privcore.base.errors.InputError` where
      CuPy or a GPU is missing;
    - ``"auto"`` (the default): the GPU for a pass of at least :data:`GPU_MIN_PAIRS` query × reference pairs
      when a GPU is usable, the CPU otherwise (below that size, copying the tables and starting CUDA costs
      more than the pass).

    Examples
    --------
    >>> resolve_device("cpu", 10**6, 10**6), resolve_device("auto", 100, 100)
    ('cpu', 'cpu')
    """
    device = check_device(current_device() if device is None else device)
    if device == "cpu":
        return "cpu"
    if device == "gpu":
        require_gpu()
        return "gpu" if dims > 0 else "cpu"
    # The size test comes first so that small passes never import CuPy.
    if dims > 0 and float(n_query) * float(n_reference) >= GPU_MIN_PAIRS and gpu_available():
        return "gpu"
    return "cpu"


def current_device() -> str:
    """The device of the evaluation running in this thread, ``"auto"`` outside one."""
    return _CURRENT.get()


@contextlib.contextmanager
def using_device(device: str) -> Iterator[str]:
    """Within the block, neighbour passes called without ``device=`` use ``device``.

    These are metrics calling :mod:`privcore.engine.neighbors` directly; :func:`privcore.evaluate` sets it for its run.
    """
    token = _CURRENT.set(check_device(device))
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)


def array_module(device: str) -> Any:
    """The array module of ``device``: cupy for ``"gpu"`` (numpy when emulated), numpy for ``"cpu"``.

    Notes
    -----
    Why CuPy and not PyTorch: CuPy's arrays follow numpy's API, so the chunk kernels of
    :mod:`privcore.engine.neighbors` are written once against an array module ``xp`` and run unchanged with
    ``xp = numpy``: the tests of a machine without a GPU (CI) exercise the very code the GPU runs
    (:data:`EMULATE_VARIABLE`). It brings cuBLAS float64 matrix products and is a far smaller dependency
    than PyTorch, which privcore would only use as an array library.

    What runs where: the block products ``|r|²/2 − q·r``, the per-row best and second-best scores, the
    candidate masks, the near-farthest pairs of the extremes and the radius masks run on the GPU in float64;
    only candidate (row, column) pairs and per-row vectors come back. The exact distances
    ``sqrt(Σ (q − r)²)`` of the candidates, the tie tolerance of metrics.md §0 and the lowest-index rule stay
    the host code of the CPU path, so the neighbours, d_min and d_max are the same numbers on either device.
    (Float32 scores alone lose exact ties; the CPU uses them only to propose candidates for the float64
    refinement, to halve the bytes its passes move. The GPU keeps float64, whose throughput on data-centre GPUs
    such as the H100 matches float32's.) The k-d tree
    path of few-column spaces (Φk) stays on the CPU. A Dask cluster and a GPU are not combined: with a
    cluster, ``"auto"`` means the cluster's CPUs and ``"gpu"`` is refused.
    """
    if device == "gpu" and not emulated():
        import cupy  # lazy: optional extra privcore[gpu]

        return cupy
    return np


def to_host(array: Any) -> np.ndarray:
    """``array`` as a numpy array (copied from the GPU when it lives there)."""
    if isinstance(array, np.ndarray):
        return array
    get = getattr(array, "get", None)
    return get() if callable(get) else np.asarray(array)


def device_chunk_elements(chunk_elements: int) -> int:
    """Distances per chunk on the GPU: the larger of ``chunk_elements`` and :data:`GPU_CHUNK_ELEMENTS`, within memory.

    No more than a quarter of the free device memory holds for :data:`GPU_THREADS` chunks at once (a chunk needs its
    block and a few smaller temporaries). Emulated: ``chunk_elements`` as given, so tests can split tables into small
    chunks.
    """
    if emulated():
        return chunk_elements
    import cupy  # lazy: optional extra privcore[gpu]

    free, _ = cupy.cuda.runtime.memGetInfo()
    fits = int(free // (4 * 8 * GPU_THREADS))
    return max(1, min(max(chunk_elements, GPU_CHUNK_ELEMENTS), fits))


def device_name() -> str | None:
    """The first CUDA device's name, None without one (emulated: ``"emulated (numpy)"``)."""
    if emulated():
        return "emulated (numpy)"
    if _cuda_device_count() == 0:
        return None
    import cupy  # lazy: optional extra privcore[gpu]

    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)
