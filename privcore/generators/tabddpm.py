"""The ``tabddpm`` generator: TabDDPM (Kotelnikov et al., ICML 2023) under privcore's generator protocol."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from privcore.data import MAX_SEED, Param, check_seed
from privcore.generators.base import (
    BaseGenerator,
    GeneratorError,
    GeneratorSettingError,
    check_settings_of,
    check_table,
)
from privcore.generators.diffusion.schedule import SCHEDULES, make_schedule
from privcore.generators.spec import GeneratorSpec, install_command, module_installed
from privcore.generators.tabddpm_encoding import TableEncoding

__all__ = ["TabDDPM", "TABDDPM_SPEC", "TABDDPM_EXTRA", "TABDDPM_INSTALL", "DEVICES"]

#: The extra that brings torch, and the command that installs it.
TABDDPM_EXTRA = "tabddpm"
TABDDPM_INSTALL = install_command(TABDDPM_EXTRA)
#: Where the model trains: "auto" picks CUDA when torch sees a GPU.
DEVICES = ("auto", "cpu", "cuda")
#: Records per forward pass when sampling or scoring (bounds memory, not results).
CHUNK = 4096


def missing_torch(who: str) -> GeneratorError:
    """The error for a missing torch: what needs it and the one command that installs it."""
    return GeneratorError(f"{who} needs torch, which is not installed here. Install it with: {TABDDPM_INSTALL}")


#: The settings of :class:`TabDDPM`, each declared once: the constructor checks them, the registry lists all but
#: ``weight_decay`` (and offers ``gpu`` instead of ``device``).
TABDDPM_PARAMS = (
    Param("timesteps", "int", 100, "Diffusion steps", "Noise steps T of the forward and reverse processes (the "
          "paper uses 1,000; 100 samples ten times faster).", minimum=2, maximum=10_000),
    Param("steps", "int", 2000, "Training steps", "Batches the denoiser trains on (the paper: 10,000 to 30,000; 0 "
          "keeps a fine-tuned model's base as it is).", minimum=0, maximum=1_000_000, step=100),
    Param("batch_size", "int", 256, "Batch size", "Records per training step.", minimum=1, maximum=1_000_000,
          step=32),
    Param("lr", "float", 2e-3, "Learning rate", "AdamW's initial learning rate, falling linearly to 0.",
          minimum=1e-6, maximum=1.0),
    Param("width", "int", 256, "Layer width", "Units of each hidden layer of the denoiser.", minimum=8,
          maximum=4096, step=32),
    Param("depth", "int", 3, "Layers", "Hidden layers of the denoiser.", minimum=1, maximum=16),
    Param("weight_decay", "float", 1e-4, "Weight decay", "AdamW's weight decay.", minimum=0.0, maximum=10.0),
    Param("threads", "int", 1, "CPU threads", "torch's threads while fitting and sampling (1 suits the audit, "
          "which runs one fit per core).", minimum=1, maximum=256),
    Param("seed", "int", 0, "Fit seed", "Seed of the initial weights, the batches and the training noise.",
          minimum=0, maximum=MAX_SEED),
    Param("schedule", "choice", "cosine", "Noise schedule", "How the noise grows over the diffusion steps.",
          choices=SCHEDULES),
    Param("device", "choice", "auto", "Device", "Where torch trains and samples (cuda:N names one GPU).",
          choices=DEVICES),
)


def _torch():
    """The torch module, imported on first use: every method that computes calls this instead of importing it."""
    import torch  # lazy: torch is the optional extra privcore[tabddpm]; listing or checking tabddpm must not need it

    return torch


@contextmanager
def _threads(count: int):
    """PyTorch's CPU threads set to ``count`` for the block, then restored."""
    torch = _torch()
    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class TabDDPM(BaseGenerator):
    """TabDDPM; see Notes.

    Parameters
    ----------
    timesteps : int, default 100
        Diffusion steps T (the paper uses 1,000; 100 samples ten times faster and, on small tables, about
        as well).
    steps : int, default 2000
        Training steps (batches); the paper trains 10,000–30,000.
    batch_size : int, default 256
        Records per training step (at most the table's rows are used).
    lr : float, default 2e-3
        AdamW's initial learning rate, falling linearly to 0 over ``steps``.
    width, depth : int, default 256 and 3
        The denoiser's hidden layers: ``depth`` layers of ``width`` units.
    weight_decay : float, default 1e-4
        AdamW's weight decay.
    schedule : {"cosine", "linear"}
        The noise schedule (TabDDPM's default is cosine).
    device : {"auto", "cpu", "cuda"} or a torch device name
        Where the model trains and samples; "auto" is CUDA when torch sees a GPU.
    threads : int, default 1
        CPU threads torch uses while this model fits, samples or scores (set for the call, then restored).
        One suits the audit, which fits one model per core in parallel; on a shared machine more threads than
        free cores slow torch down many times over. The results depend on it only in the last bits.
    seed : int, default 0
        Seed of the initial weights, the batches and the training noise.
    base : TabDDPM, optional
        A fitted model to fine-tune instead of training from scratch (the shadow models of an audit): the new model starts from ``base``'s weights and keeps its table encoding (its quantile
        normalisers and categories, learnt on ``base``'s training table), then trains ``steps`` more steps on its
        own table at learning rate ``lr``, annealed to 0 as usual. ``base`` itself is left unchanged. The
        architecture (``width``, ``depth``, ``timesteps``, ``schedule``) is ``base``'s; a different one is an
        error. A value the base never saw is encoded as :meth:`per_record_loss` scores it (an unknown
        category as uniform over the known ones, a missing number as the base's median).

    Raises
    ------
    GeneratorError
        torch is not installed (the message names ``pip install 'privcore[tabddpm]'``).
    GeneratorSettingError
        A setting out of range.

    Notes
    -----
    One model diffuses a record's numerical columns with Gaussian noise (:mod:`privcore.generators.diffusion.gaussian`) and its categorical
    columns with multinomial noise (:mod:`privcore.generators.diffusion.multinomial`), both on one schedule (:mod:`privcore.generators.diffusion.schedule`); one MLP
    (:mod:`privcore.generators.diffusion.denoiser`) reads the noisy record and the timestep and predicts the Gaussian noise and x_0's
    categorical logits. Training minimises the paper's loss, the Gaussian ε-MSE plus the multinomial variational
    bound (its §3: L = L_simple + Σ_i L_i / C), with AdamW and a learning rate falling linearly to 0 (as the
    TabDDPM code does); sampling is ancestral, from pure noise through every step T−1 … 0.

    Departures from the reference code, all small: the categorical part of the network's input is x_t's one-hot
    vector (the code feeds its log, 0 and −69), the same information on a scale an MLP trains on more easily;
    no exponential moving average of the weights (with the few thousand steps that fit a CPU minute it lags the
    model); a table's missing values and constant columns are handled as :mod:`privcore.generators.tabddpm_encoding` says.

    torch is an optional extra (``pip install 'privcore[tabddpm]'``), imported only when a model is fitted.
    Every random number comes from a ``torch.Generator`` on the CPU seeded by ``seed`` (fit) or the sample's
    seed, and the initial weights are drawn inside ``torch.random.fork_rng`` with the fit's seed, so the global
    random state is left as it was; on the CPU a seed gives the same model and the same rows (with the same
    number of torch threads). On CUDA the noise is the same, the arithmetic may differ in the last bits.
    """

    name = "tabddpm"
    PARAMS = TABDDPM_PARAMS

    def __init__(self, *, timesteps: int = 100, steps: int = 2000, batch_size: int = 256, lr: float = 2e-3,
                 width: int = 256, depth: int = 3, weight_decay: float = 1e-4, schedule: str = "cosine",
                 device: str = "auto", threads: int = 1, seed: int = 0, base: "TabDDPM | None" = None) -> None:
        super().__init__()
        if not module_installed("torch"):
            raise missing_torch(self.name)
        # cuda:N is the device "cuda" with a GPU's index: the word is the declared choice.
        device_word, _, index = device.partition(":") if isinstance(device, str) else (device, "", "")
        checked = check_settings_of(self.name, self.PARAMS, {
            "timesteps": timesteps, "steps": steps, "batch_size": batch_size, "lr": lr, "width": width,
            "depth": depth, "weight_decay": weight_decay, "threads": threads, "seed": seed, "schedule": schedule,
            "device": device_word})
        self.timesteps, self.steps, self.batch_size = checked["timesteps"], checked["steps"], checked["batch_size"]
        self.lr, self.width, self.depth = checked["lr"], checked["width"], checked["depth"]
        self.weight_decay, self.threads, self.seed = checked["weight_decay"], checked["threads"], checked["seed"]
        if index and not (device_word == "cuda" and index.isdigit()):
            raise GeneratorSettingError(f"Device (tabddpm.device) takes a GPU's index only as cuda:N; got {device!r}.")
        self.schedule, self.device = checked["schedule"], device
        self.model = None
        self.base = _checked_base(base, self)

    def settings(self) -> dict[str, Any]:
        """The generator's settings (for reports and ``repr``)."""
        return {"timesteps": self.timesteps, "steps": self.steps, "batch_size": self.batch_size, "lr": self.lr,
                "width": self.width, "depth": self.depth, "weight_decay": self.weight_decay,
                "schedule": self.schedule, "device": self.device, "threads": self.threads, "seed": self.seed}

    # ------------------------------------------------------------------------------------------ fit
    def _fit(self) -> None:
        if not module_installed("torch"):
            raise missing_torch(self.name)
        with _threads(self.threads):
            self._fit_model()

    def _fit_model(self) -> None:
        try:
            torch = _torch()
        except ImportError as error:  # made while torch was there, or torch broken: the same one command
            raise missing_torch(self.name) from error

        from privcore.generators.diffusion.denoiser import MLPDenoiser  # lazy: imports torch (privcore[tabddpm])
        from privcore.generators.diffusion.multinomial import Categories  # lazy: imports torch (privcore[tabddpm])

        self._device = self._resolve_device(torch)
        if self.base is not None:
            self._fine_tune(torch)
            return
        self.encoding = enc = TableEncoding(self.table, self.types, seed=self.seed)
        self._sched = make_schedule(self.timesteps, self.schedule).to_torch(self._device)
        self._cats = Categories.of(enc.num_classes, self._device)
        d_num, slots = len(enc.numerical), int(sum(enc.num_classes))
        self.model = None
        if d_num + slots == 0:
            return  # every column constant: nothing to learn
        with torch.random.fork_rng(devices=[]):  # initial weights from the fit's seed, global state untouched
            torch.manual_seed(self.seed)
            self.model = MLPDenoiser(d_num + slots, d_num + slots, [self.width] * self.depth).to(self._device)
        self._train(torch.as_tensor(enc.numbers(self.table), dtype=torch.float32),
                    torch.as_tensor(enc.codes(self.table), dtype=torch.long))

    def _fine_tune(self, torch) -> None:
        """Start from the base model's weights and encoding, and train on this table."""
        base = self.base
        self.encoding, self._sched, self._cats = base.encoding, base._sched, base._cats
        self.model = None if base.model is None else copy.deepcopy(base.model).to(self._device)
        if self.model is None:
            return
        self._train(torch.as_tensor(self.encoding.numbers(self.table), dtype=torch.float32),
                    torch.as_tensor(self.encoding.codes(self.table), dtype=torch.long))

    def _resolve_device(self, torch) -> str:
        if self.device == "auto":
            return "cuda" if torch.cuda.is_available() else "cpu"
        if self.device.startswith("cuda") and not torch.cuda.is_available():
            raise GeneratorSettingError("tabddpm: the GPU was asked for (gpu=1, device 'cuda'), but torch sees no "
                                        "CUDA GPU here; leave gpu unset (device 'auto') or use the CPU (gpu=0).")
        return self.device

    def _train(self, numbers, codes) -> None:
        torch = _torch()
        gen = torch.Generator().manual_seed(self.seed)
        n, batch = len(codes), min(self.batch_size, len(codes))
        optimiser = torch.optim.AdamW(self.model.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        self.model.train()
        order, at = torch.randperm(n, generator=gen), 0
        self.losses = np.zeros((self.steps, 2))
        for step in range(self.steps):
            if at + batch > n:  # a new epoch: a new shuffle (TabDDPM's shuffled data loader)
                order, at = torch.randperm(n, generator=gen), 0
            rows, at = order[at:at + batch], at + batch
            t = torch.randint(self.timesteps, (batch,), generator=gen)
            gauss, multi = self._loss(numbers[rows], codes[rows], t, *self._noise(batch, gen))
            loss = gauss.mean() + multi.mean()
            if not torch.isfinite(loss):
                raise GeneratorError(f"{self.name}: training diverged at step {step + 1:,} (the loss is not a "
                                     f"finite number); try a smaller learning rate than lr={self.lr:g}.")
            for group in optimiser.param_groups:  # TabDDPM's annealing: linearly to 0 at the last step
                group["lr"] = self.lr * (1.0 - step / self.steps)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            self.losses[step] = gauss.mean().item(), multi.mean().item()
        self.model.eval()

    def _noise(self, n: int, gen) -> tuple[Any, Any]:
        """Standard normal noise for the numbers and uniforms for the categories' Gumbel draws (CPU generator)."""
        torch = _torch()
        return (torch.randn(n, len(self.encoding.numerical), generator=gen),
                torch.rand(n, len(self.encoding.num_classes), self._cats.width, generator=gen))

    def _net(self, x_num, log_x_cat, t):
        """The denoiser on x_t: (ε̂, x̂_0's logits laid out like ``log_x_cat``)."""
        torch = _torch()
        from privcore.generators.diffusion.multinomial import PAD  # lazy: imports torch (privcore[tabddpm])

        mask = self._cats.mask
        out = self.model(torch.cat([x_num, log_x_cat.exp()[:, mask]], dim=1), t)
        d_num = x_num.shape[1]
        logits = torch.full_like(log_x_cat, PAD)
        logits[:, mask] = out[:, d_num:]
        return out[:, :d_num], logits

    def _loss(self, x0_num, codes, t, noise, uniform):
        """Per-record Gaussian and multinomial losses at timesteps ``t`` with the given noise (CPU tensors)."""
        torch = _torch()
        from privcore.generators.diffusion import gaussian, multinomial  # lazy: imports torch (privcore[tabddpm])

        s, cats, dev = self._sched, self._cats, self._device
        x0_num, codes, t, noise, uniform = (v.to(dev) for v in (x0_num, codes, t, noise, uniform))
        xt_num = gaussian.q_sample(x0_num, t, noise, s)
        log_x0 = self._log_x0(codes)
        log_xt = multinomial.q_sample(log_x0, t, uniform, s, cats)
        eps, logits = self._net(xt_num, log_xt, t)
        zero = torch.zeros(len(t), device=dev)
        gauss = gaussian.eps_loss(eps, noise) if x0_num.shape[1] else zero
        multi = multinomial.multinomial_loss(logits, log_x0, log_xt, t, s, cats) if codes.shape[1] else zero
        return gauss, multi

    def _log_x0(self, codes):
        """Log one-hot of ``codes``; a code of −1 (a category the training table lacked) is uniform."""
        torch = _torch()
        from privcore.generators.diffusion import multinomial  # lazy: imports torch (privcore[tabddpm])

        known = codes >= 0
        log_x0 = multinomial.log_onehot(codes.clamp(min=0), self._cats)
        uniform = torch.where(self._cats.mask, -self._cats.log_k, torch.full_like(self._cats.log_k,
                                                                                   multinomial.PAD))
        return torch.where(known[..., None], log_x0, uniform.expand_as(log_x0))

    # ------------------------------------------------------------------------------------------ sample
    def _draw(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        # The protocol's numpy generator gives one number, the seed of the torch generator the draws come from.
        torch = _torch()
        gen = torch.Generator().manual_seed(int(rng.integers(2**63 - 1)))
        numbers, codes = [], []
        with _threads(self.threads):
            for start in range(0, n, CHUNK):
                num, cat = self._sample_chunk(min(CHUNK, n - start), gen)
                numbers.append(num)
                codes.append(cat)
        return self.encoding.decode(np.concatenate(numbers), np.concatenate(codes))

    def _sample_chunk(self, n: int, gen) -> tuple[np.ndarray, np.ndarray]:
        """Ancestral sampling (Ho et al. 2020, Algorithm 2; Hoogeboom et al. 2021, §4) of ``n`` records."""
        torch = _torch()
        from privcore.generators.diffusion import gaussian, multinomial  # lazy: imports torch (privcore[tabddpm])

        enc, s, cats, dev = self.encoding, self._sched, self._cats, self._device
        if self.model is None:
            return np.zeros((n, 0)), np.zeros((n, 0), dtype=np.int64)
        with torch.no_grad():
            z, u = self._noise(n, gen)
            x_num = z.to(dev)
            # x_T: standard normal numbers, uniformly drawn categories (the stationary distribution)
            log_x = multinomial.log_onehot(multinomial.draw(torch.zeros_like(u).to(dev), u.to(dev), cats), cats)
            for i in reversed(range(self.timesteps)):
                t = torch.full((n,), i, dtype=torch.long, device=dev)
                eps, logits = self._net(x_num, log_x, t)
                z, u = self._noise(n, gen)
                x_num = gaussian.p_sample(eps, x_num, t, z.to(dev), s)
                log_x = multinomial.log_onehot(multinomial.draw(multinomial.p_pred(logits, log_x, t, s, cats),
                                                                u.to(dev), cats), cats)
        codes = log_x.argmax(dim=-1) if enc.num_classes else torch.zeros((n, 0), dtype=torch.long)
        return x_num.cpu().double().numpy(), codes.cpu().numpy()

    # ------------------------------------------------------------------------------------------ white box
    def default_loss_timesteps(self, count: int = 10) -> list[int]:
        """``count`` timesteps spread evenly over 0 … T−1 (fewer when T is small)."""
        return sorted({int(round(x)) for x in np.linspace(0, self.timesteps - 1, count)})

    def per_record_loss(self, table: pd.DataFrame, *, timesteps: Sequence[int] | None = None, seed: int = 0,
                        per_timestep: bool = False) -> np.ndarray:
        """Each record's denoising loss (the training loss: ε-MSE plus the weighted multinomial bound).

        The noise is fixed: at timestep t, the record in position i gets the noise of the i-th row of a
        draw seeded by ``(seed, t)`` — the same whatever the table's length, the other records or the other
        timesteps asked for — so two calls agree and a record's loss depends only on the model, the record,
        its position, t and ``seed``. A category the training table lacked counts as uniform over the known
        ones; a missing number as the training median. This is the white-box interface of
        :func:`privcore.generators.base.per_record_loss`.

        Parameters
        ----------
        table : DataFrame
            Records with the training table's columns (e.g. training records and fresh ones).
        timesteps : sequence of int, optional
            Timesteps in 0 … T−1; default :meth:`default_loss_timesteps`.
        seed : int
            Seed of the fixed noise.
        per_timestep : bool
            Return the ``(records, timesteps)`` matrix instead of its mean over timesteps.

        Returns
        -------
        numpy.ndarray
            One finite float per record (its mean over ``timesteps``), or the matrix.
        """
        torch = _torch()
        self._fitted()
        table = check_table(table, self.name, role="table to score")
        missing = [c for c in self.encoding.columns if c not in table.columns]
        if missing:
            raise GeneratorError(f"{self.name}: the table to score lacks the training column(s) "
                                 f"{', '.join(map(repr, missing))}.")
        seed = check_seed(seed)
        steps = self.default_loss_timesteps() if timesteps is None else list(timesteps)
        bad = [t for t in steps if isinstance(t, bool) or not isinstance(t, (int, np.integer))
               or not 0 <= t < self.timesteps]
        if bad or not steps:
            raise GeneratorSettingError(f"{self.name}: timesteps must be whole numbers from 0 to "
                                        f"{self.timesteps - 1}; got {timesteps!r}.")
        n = len(table)
        out = np.zeros((n, len(steps)))
        if self.model is None:
            return out if per_timestep else out.mean(axis=1)
        numbers = torch.as_tensor(self.encoding.numbers(table), dtype=torch.float32)
        codes = torch.as_tensor(self.encoding.codes(table), dtype=torch.long)
        d_num, cats = numbers.shape[1], self._cats
        with torch.no_grad(), _threads(self.threads):
            for k, step in enumerate(steps):
                # Separate streams for normals and uniforms, so that row i's noise does not depend on n.
                normal = np.random.default_rng([seed, int(step), 0]).standard_normal((n, d_num))
                uniform = np.random.default_rng([seed, int(step), 1]).random((n, codes.shape[1], cats.width))
                for a in range(0, n, CHUNK):
                    b = min(a + CHUNK, n)
                    gauss, multi = self._loss(numbers[a:b], codes[a:b], torch.full((b - a,), int(step)),
                                              torch.as_tensor(normal[a:b], dtype=torch.float32),
                                              torch.as_tensor(uniform[a:b], dtype=torch.float32))
                    out[a:b, k] = (gauss + multi).double().cpu().numpy()
        return out if per_timestep else out.mean(axis=1)


def _checked_base(base: Any, model: TabDDPM) -> TabDDPM | None:
    """``base`` when it is a fitted TabDDPM of ``model``'s architecture (see the ``base`` parameter)."""
    if base is None:
        return None
    if not isinstance(base, TabDDPM) or getattr(base, "encoding", None) is None:
        raise GeneratorSettingError("tabddpm: base must be a fitted tabddpm model (call its fit first).")
    for name in ("timesteps", "width", "depth", "schedule"):
        if getattr(base, name) != getattr(model, name):
            raise GeneratorSettingError(f"tabddpm: a fine-tuned model keeps its base's {name} "
                                        f"({getattr(base, name)!r}); got {getattr(model, name)!r}.")
    return base


# ------------------------------------------------------------------------------------------ registry
def _build(timesteps: int, steps: int, batch_size: int, lr: float, width: int, depth: int, gpu: int | None,
           threads: int, seed: int) -> TabDDPM:
    device = "auto" if gpu is None else ("cuda" if gpu else "cpu")
    return TabDDPM(timesteps=timesteps, steps=steps, batch_size=batch_size, lr=lr, width=width, depth=depth,
                   device=device, threads=threads, seed=seed)


_DECLARED = {param.name: param for param in TABDDPM_PARAMS}

#: The registry's entry (listed after the other built-ins, even when torch is missing).
TABDDPM_SPEC = GeneratorSpec(
    "tabddpm", "TabDDPM: Gaussian and multinomial diffusion with an MLP denoiser (needs privcore[tabddpm]).",
    tuple(_DECLARED[name] for name in ("timesteps", "steps", "batch_size", "lr", "width", "depth"))
    + (Param("gpu", "int", None, "GPU", "1 trains and samples on the CUDA GPU, 0 on the CPU.", minimum=0, maximum=1,
             rule="not set: the GPU when torch sees one, else the CPU"),)
    + tuple(_DECLARED[name] for name in ("threads", "seed")),
    _build, label="TabDDPM (diffusion)", extra=TABDDPM_EXTRA, requires=("torch",))
