"""TabDDPM (``tabddpm``, privcore.generators.tabddpm): the diffusions against hand-computed values, a tiny
table learned and sampled back, determinism, the per-record loss, and the registry entry.

Everything runs on tiny tables with a few hundred training steps (seconds on two CPU cores); the speed of the
defaults on Adult is measured outside the tests (see the README).
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch", reason="privcore[tabddpm] (torch) is installed by requirements-dev.txt")

from privcore.generators import (  # noqa: E402
    GeneratorError,
    GeneratorOutputError,
    GeneratorSettingError,
    PerRecordLoss,
    as_generator,
    get_generator_spec,
    make_generator,
    per_record_loss,
)
from privcore.generators.diffusion import gaussian  # noqa: E402
from privcore.generators.diffusion import multinomial as M  # noqa: E402
from privcore.generators.diffusion.schedule import cosine_betas, linear_betas, make_schedule  # noqa: E402
from privcore.generators.tabddpm import TabDDPM  # noqa: E402

#: A tiny denoiser: enough to learn a two-column joint in about a second.
TINY = {"timesteps": 20, "width": 64, "depth": 2, "batch_size": 128}


def alpha_bar_cosine(i: int, T: int, s: float = 0.008) -> float:
    """ᾱ after step i (0-based) of Nichol & Dhariwal's cosine schedule, straight from eq. 17 (no clipping)."""
    f = lambda x: math.cos((x / T + s) / (1 + s) * math.pi / 2) ** 2  # noqa: E731
    return f(i + 1) / f(0)


# ------------------------------------------------------------------------------------------ schedule
def test_the_schedules_match_their_formulas():
    T = 10
    s = make_schedule(T, "cosine")
    for i in range(T - 1):  # the last β is clipped at 0.999, the others are not
        assert s.alphas_cumprod[i] == pytest.approx(alpha_bar_cosine(i, T), rel=1e-12)
    assert cosine_betas(T)[-1] == 0.999
    assert linear_betas(1000)[0] == pytest.approx(1e-4) and linear_betas(100)[-1] == pytest.approx(0.2)
    # Ho et al. eq. 7 at one t, by hand
    t, b, ab, abp = 4, s.betas[4], s.alphas_cumprod[4], s.alphas_cumprod[3]
    assert s.posterior_variance[t] == pytest.approx(b * (1 - abp) / (1 - ab))
    assert s.posterior_mean_coef1[t] == pytest.approx(b * math.sqrt(abp) / (1 - ab))
    assert s.posterior_mean_coef2[t] == pytest.approx((1 - abp) * math.sqrt(1 - b) / (1 - ab))
    short = make_schedule(10, "linear")  # the scaled linear end (2.0) clipped, every constant finite
    assert short.betas.max() == 0.999 and all(np.isfinite(getattr(short, f)).all() for f in short.__dataclass_fields__)
    with pytest.raises(ValueError, match="schedule"):
        make_schedule(10, "sigmoid")


# ------------------------------------------------------------------------------------------ Gaussian
def test_gaussian_forward_marginals_are_sqrt_alpha_bar_x0_and_one_minus_alpha_bar():
    T, t_step = 10, 3
    s = make_schedule(T).to_torch()
    ab = alpha_bar_cosine(t_step, T)
    x0 = torch.tensor([[1.5, -2.0]])
    t = torch.tensor([t_step])
    mean, var = gaussian.q_mean_variance(x0, t, s)
    assert mean[0].numpy() == pytest.approx([math.sqrt(ab) * 1.5, math.sqrt(ab) * -2.0], rel=1e-5)
    assert var[0].numpy() == pytest.approx([1 - ab, 1 - ab], rel=1e-5)
    # and the draws q_sample makes have that mean and variance (200,000 draws: 3σ ≈ 0.007·σ)
    n = 200_000
    noise = torch.randn(n, 2, generator=torch.Generator().manual_seed(0))
    xt = gaussian.q_sample(x0.expand(n, 2), torch.full((n,), t_step), noise, s)
    assert xt.mean(0).numpy() == pytest.approx(mean[0].numpy(), abs=0.01)
    assert xt.var(0).numpy() == pytest.approx([1 - ab] * 2, rel=0.02)
    # the ε-loss is the mean squared error per record; x̂_0 from the true ε is x_0
    assert gaussian.eps_loss(torch.tensor([[1.0, 3.0]]), torch.tensor([[0.0, 0.0]])).tolist() == [5.0]
    x0_hat = gaussian.predict_x0_from_eps(xt[:3], torch.full((3,), t_step), noise[:3], s)
    assert torch.allclose(x0_hat, x0.expand(3, 2), atol=1e-5)


# ------------------------------------------------------------------------------------------ multinomial
def test_multinomial_forward_marginal_is_alpha_bar_x0_plus_uniform_share():
    T, t_step = 10, 5
    s = make_schedule(T).to_torch()
    ab = alpha_bar_cosine(t_step, T)
    cats = M.Categories.of([3])
    log_x0 = M.log_onehot(torch.tensor([[1]]), cats)
    probs = M.q_pred(log_x0, torch.tensor([t_step]), s, cats).exp()[0, 0].numpy()
    by_hand = [(1 - ab) / 3, ab + (1 - ab) / 3, (1 - ab) / 3]
    assert probs == pytest.approx(by_hand, rel=1e-5)
    # q_sample draws categories with those frequencies (60,000 draws: 3σ < 0.006)
    n = 60_000
    uniform = torch.rand(n, 1, 3, generator=torch.Generator().manual_seed(1))
    drawn = M.q_sample(log_x0.expand(n, 1, 3), torch.full((n,), t_step), uniform, s, cats).argmax(-1)[:, 0]
    assert np.bincount(drawn.numpy(), minlength=3) / n == pytest.approx(by_hand, abs=0.008)


def test_multinomial_posterior_against_bayes_rule_by_hand():
    T, t_step = 10, 4
    sched = make_schedule(T)
    s = sched.to_torch()
    a, abp = sched.alphas[t_step], sched.alphas_cumprod[t_step - 1]
    # K = 3, x_0 = category 0, x_t = category 1 (Hoogeboom et al. 2021, §4):
    # q(x_{t-1} = k) ∝ [α_t·1{k=1} + (1 − α_t)/3]·[ᾱ_{t−1}·1{k=0} + (1 − ᾱ_{t−1})/3]
    unnorm = np.array([(1 - a) / 3 * (abp + (1 - abp) / 3), (a + (1 - a) / 3) * (1 - abp) / 3,
                       (1 - a) / 3 * (1 - abp) / 3])
    # its normaliser is q(x_t = 1 | x_0 = 0) = (1 − ᾱ_t)/3: Bayes' rule, not just a renormalisation
    assert unnorm.sum() == pytest.approx((1 - sched.alphas_cumprod[t_step]) / 3)
    # a second column of K = 2 shares the padded layout (width 3) and must not disturb the first
    cats = M.Categories.of([3, 2])
    log_x0 = M.log_onehot(torch.tensor([[0, 1]]), cats)
    log_xt = M.log_onehot(torch.tensor([[1, 0]]), cats)
    post = M.q_posterior(log_x0, log_xt, torch.tensor([t_step]), s, cats).exp()[0]
    assert post[0].numpy() == pytest.approx(unnorm / unnorm.sum(), rel=1e-4)
    u2 = np.array([(1 - a) / 2 * (1 - abp) / 2 + a * (1 - abp) / 2, (1 - a) / 2 * (abp + (1 - abp) / 2)])
    assert post[1, :2].numpy() == pytest.approx(u2 / u2.sum(), rel=1e-4) and float(post[1, 2]) == 0.0
    # at t = 0 the posterior is x_0 itself; the model's p at the true x_0's logits equals the posterior
    at0 = M.q_posterior(log_x0, log_xt, torch.tensor([0]), s, cats).exp()[0]
    assert at0[0].numpy() == pytest.approx([1, 0, 0], abs=1e-6)
    logits = torch.where(cats.mask, log_x0 * 1.0, torch.full_like(log_x0, M.PAD))
    model = M.p_pred(logits, log_xt, torch.tensor([t_step]), s, cats).exp()[0]
    assert model.numpy() == pytest.approx(post.numpy(), abs=1e-5)
    # so its loss is only the prior term (near 0) and the KL of a wrong guess is positive
    loss = M.multinomial_loss(logits, log_x0, log_xt, torch.tensor([t_step]), s, cats)
    assert float(loss) == pytest.approx(float(M.kl_prior(log_x0, s, cats)) / 2, abs=1e-4)
    wrong = M.multinomial_loss(-logits, log_x0, log_xt, torch.tensor([t_step]), s, cats)
    assert float(wrong) > float(loss) + 1


# ------------------------------------------------------------------------------------------ learning
def joint_table(n: int = 300) -> pd.DataFrame:
    """a: 70 % "x" exactly; b: "p" exactly when a is "x"; v ≈ −2 when a is "x", +2 otherwise (σ = 0.3)."""
    rng = np.random.default_rng(0)
    a = rng.permutation(np.arange(n) < int(0.7 * n))
    return pd.DataFrame({"a": np.where(a, "x", "y"), "b": np.where(a, "p", "q"),
                         "v": np.where(a, -2.0, 2.0) + rng.normal(0, 0.3, n), "k": np.where(a, 1, 2)})


JOINT_TYPES = {"a": "categorical", "b": "binary", "v": "numerical", "k": "numerical"}


@pytest.fixture(scope="module")
def joint_model():
    real = joint_table()
    return real, TabDDPM(steps=1000, **TINY).fit(real, JOINT_TYPES)


@pytest.mark.slow
def test_a_known_joint_is_learned_and_sampled_back(joint_model):
    """Tolerances: the share of "x" within 0.06 of 0.7 (1,000 rows: one σ of sampling is 0.015, and six seeds
    of this fit gave 0.68 to 0.74); b agrees with a in ≥ 97 % of rows, v's sign with a in ≥ 93 %, v's mean
    given "x" within 0.25 of −2; the whole-number column k stays whole and in {1, 2}."""
    real, gen = joint_model
    out = gen.sample(1000, seed=0)
    assert list(out.columns) == list(real.columns) and (out.dtypes == real.dtypes).all()
    is_x = out["a"] == "x"
    assert abs(is_x.mean() - 0.7) <= 0.06
    assert (is_x == (out["b"] == "p")).mean() >= 0.97
    assert (is_x == (out["v"] < 0)).mean() >= 0.93
    assert abs(out.loc[is_x, "v"].mean() + 2) <= 0.25
    assert set(out["k"]) <= {1, 2} and (is_x == (out["k"] == 1)).mean() >= 0.9
    assert np.isfinite(gen.losses).all() and gen.losses[-100:].sum(1).mean() < gen.losses[:100].sum(1).mean()


def test_one_seed_one_table_and_one_model():
    real = joint_table(60)
    first = TabDDPM(steps=30, **TINY).fit(real, JOINT_TYPES)
    again = TabDDPM(steps=30, **TINY).fit(real, JOINT_TYPES)
    a = first.sample(40, seed=5)
    pd.testing.assert_frame_equal(a, first.sample(40, seed=5))
    pd.testing.assert_frame_equal(a, again.sample(40, seed=5))  # same fit seed: same weights
    assert not a.equals(first.sample(40, seed=6))
    threads, state = torch.get_num_threads(), torch.random.get_rng_state()
    other = TabDDPM(steps=30, seed=1, **TINY).fit(real, JOINT_TYPES)
    assert not a.equals(other.sample(40, seed=5))
    # torch's global random state and thread count are as they were
    assert torch.get_num_threads() == threads and torch.equal(torch.random.get_rng_state(), state)


def test_missing_values_constant_columns_and_categories_round_trip():
    rng = np.random.default_rng(2)
    n = 80
    real = pd.DataFrame({"num": np.where(rng.random(n) < 0.25, np.nan, rng.normal(50, 5, n)),
                         "cat": rng.choice(["u", "v", None], n), "const": "same", "one": 7,
                         "flag": rng.choice([True, False], n)})
    types = {"num": "numerical", "cat": "categorical", "const": "categorical", "one": "numerical", "flag": "binary"}
    out = TabDDPM(steps=40, **TINY).fit(real, types).sample(200, seed=0)
    assert (out.dtypes == real.dtypes).all() and (out["const"] == "same").all() and (out["one"] == 7).all()
    assert out["num"].isna().any() and out["num"].notna().any()
    assert set(out["cat"].dropna()) <= {"u", "v"} and out["cat"].isna().any()
    only_constants = TabDDPM(steps=5, **TINY).fit(real[["const", "one"]], types)
    pd.testing.assert_frame_equal(only_constants.sample(3, 0), real[["const", "one"]].iloc[:3])


# ------------------------------------------------------------------------------------------ per-record loss
@pytest.mark.slow
def test_per_record_loss_is_one_finite_reproducible_value_per_record(joint_model):
    real, gen = joint_model
    assert isinstance(gen, PerRecordLoss)
    losses = gen.per_record_loss(real)
    assert losses.shape == (len(real),) and np.isfinite(losses).all()
    assert np.array_equal(losses, gen.per_record_loss(real))
    # a record's noise depends on its position, t and the seed only: a prefix scores the same
    assert gen.per_record_loss(real.iloc[:7]) == pytest.approx(losses[:7], rel=1e-5)
    assert not np.allclose(losses, gen.per_record_loss(real, seed=1))
    matrix = gen.per_record_loss(real, timesteps=[0, 10, 19], per_timestep=True)
    assert matrix.shape == (len(real), 3) and np.isfinite(matrix).all()
    assert gen.per_record_loss(real, timesteps=[10]) == pytest.approx(matrix[:, 1])
    # an unseen category and a missing number still give a finite loss
    odd = real.iloc[:2].assign(a=["zzz", "x"], v=[np.nan, 0.0])
    assert np.isfinite(gen.per_record_loss(odd)).all()
    # the protocol's helper checks it; a generator without it answers None
    assert per_record_loss(gen, real) == pytest.approx(losses)
    assert per_record_loss(make_generator("exact_copy").fit(real, JOINT_TYPES), real) is None
    with pytest.raises(GeneratorSettingError, match="timesteps"):
        gen.per_record_loss(real, timesteps=[20])
    with pytest.raises(GeneratorError, match="lacks"):
        gen.per_record_loss(real.drop(columns="v"))


@pytest.mark.slow
def test_per_record_loss_is_lower_on_training_records_of_an_overfit_model():
    rng = np.random.default_rng(1)

    def rows(n):
        return pd.DataFrame({"c": rng.choice(list("abcdef"), n), "d": rng.choice(list("uvw"), n),
                             "v": rng.normal(0, 1, n), "w": rng.normal(0, 1, n)})

    train, fresh = rows(24), rows(24)
    gen = TabDDPM(timesteps=20, steps=600, width=128, depth=2, batch_size=24).fit(
        train, {"c": "categorical", "d": "categorical", "v": "numerical", "w": "numerical"})
    member, other = gen.per_record_loss(train), gen.per_record_loss(fresh)
    assert member.mean() < other.mean()
    assert (member[:, None] < other[None, :]).mean() > 0.7  # the loss attack's AUC (three seeds: 0.84–0.90)


def test_the_helper_checks_an_outside_generators_losses():
    class Outside:
        def fit(self, table, types):
            self.table = table

        def sample(self, n, seed):
            return self.table.iloc[:n]

        def per_record_loss(self, table, *, seed=0):
            return [1.0, float("nan")][:len(table)]

    wrapped = as_generator(Outside())
    wrapped.fit(joint_table(2), JOINT_TYPES)
    with pytest.raises(GeneratorOutputError, match="one finite number per record"):
        per_record_loss(wrapped, joint_table(2))


# ------------------------------------------------------------------------------------------ registry
def test_registered_with_label_extra_and_settings():
    spec = get_generator_spec("tabddpm")
    assert spec.label == "TabDDPM (diffusion)" and spec.extra == "tabddpm" and spec.requires == ("torch",)
    assert spec.install == "pip install 'privcore[tabddpm]'" and spec.installed
    assert {p.name for p in spec.params} >= {"timesteps", "steps", "batch_size", "lr", "width", "depth", "gpu",
                                             "seed"}
    gen = make_generator("tabddpm", steps=10, gpu=0)
    assert isinstance(gen, TabDDPM) and gen.device == "cpu" and gen.steps == 10
    assert make_generator("tabddpm").device == "auto"
    with pytest.raises(GeneratorSettingError, match="timesteps"):
        make_generator("tabddpm", timesteps=1)
    with pytest.raises(GeneratorSettingError, match="device"):
        TabDDPM(device="tpu")
    if not torch.cuda.is_available():  # CI: the GPU asked for and absent is named at fit, with what to do
        with pytest.raises(GeneratorSettingError, match="no CUDA GPU.*gpu=0"):
            make_generator("tabddpm", gpu=1, steps=1).fit(joint_table(20), JOINT_TYPES)


def test_without_torch_it_is_listed_with_its_install_command(monkeypatch):
    built = make_generator("tabddpm", steps=5)
    monkeypatch.setitem(sys.modules, "torch", None)  # what Python does for a package that is not there
    with pytest.raises(GeneratorError, match=r"needs torch.*pip install 'privcore\[tabddpm\]'"):
        built.fit(joint_table(20), JOINT_TYPES)
    spec = get_generator_spec("tabddpm")
    assert not spec.installed and "not installed: pip install 'privcore[tabddpm]'" in spec.describe()
    with pytest.raises(GeneratorError, match=r"pip install 'privcore\[tabddpm\]'"):
        make_generator("tabddpm")


def test_importing_the_generators_does_not_import_torch():
    code = "import sys, privcore.generators; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr[-2000:]


# ------------------------------------------------------------------------------------------ fine-tuning
def test_fine_tuning_starts_from_the_base_and_learns_its_own_table(joint_model):
    """Issue 38 item 4: a shadow model fine-tuned from a base model. With 0 steps it is the base (the same loss for
    every record); with some steps it fits its own table better than the base did, the base is left unchanged,
    and it keeps the base's architecture."""
    real, base = joint_model
    before = base.per_record_loss(real)
    same = TabDDPM(steps=0, base=base, **TINY).fit(real.iloc[:300], JOINT_TYPES)
    assert same.per_record_loss(real) == pytest.approx(before, rel=1e-6)
    # its own table: every record flipped to the pattern the base saw least, so the base finds it unusual
    own = real.iloc[:200].assign(a="y", b="q", v=2.0, k=2)
    tuned = TabDDPM(steps=150, base=base, **TINY).fit(own, JOINT_TYPES)
    assert tuned.per_record_loss(own).mean() < base.per_record_loss(own).mean()
    assert np.array_equal(base.per_record_loss(real), before)  # the base is not trained further
    assert (tuned.sample(50, seed=0)["a"] == "y").mean() > 0.8
    with pytest.raises(GeneratorSettingError, match="keeps its base's width"):
        TabDDPM(steps=5, base=base, **{**TINY, "width": 32})
    with pytest.raises(GeneratorSettingError, match="fitted tabddpm"):
        TabDDPM(steps=5, base=TabDDPM(**TINY), **TINY)
