"""Synth-MIA's attacks (Ward et al. 2025), re-implemented for measurement only, on privcore's own members,
non-members and reference rows, so the published battery and privcore's are compared on the same records.

Encoding as Synth-MIA's examples: numbers standard-scaled and categories one-hot, fitted on the synthetic
table. Attacks: DCR, DCR-Diff, Monte-Carlo counting, DPI, random-forest classifier, Gaussian-KDE density,
DOMIAS and Gen-LRA (scipy's ``gaussian_kde``; it fails with a singular covariance on one-hot tables, as
the published code does, and such an attack is reported as failed). The peer's figure is its best AUC on
all records, the way the battery reports it (chosen and counted on the same records).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats
from scipy.spatial import cKDTree
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.neighbors import KDTree, NearestNeighbors
from sklearn.preprocessing import OneHotEncoder, StandardScaler


def encoded_roles(real, synthetic, holdout, types, seed=0):
    """Members, non-members, synthetic and reference rows, encoded as Synth-MIA does (privcore's roles)."""
    from privcore.metrics import membership_sets

    sets = membership_sets(len(real), len(holdout), seed, split_holdout=True)
    members, nonmembers, reference = real.iloc[sets.members], holdout.iloc[sets.nonmembers], holdout.iloc[sets.reference]
    numerical = [c for c, t in types.items() if t == "numerical"]
    categorical = [c for c, t in types.items() if t != "numerical"]

    def fill(frame):
        frame = frame.copy()
        for c in categorical:
            frame[c] = frame[c].astype(object).where(frame[c].notna(), "NA").astype(str)
        for c in numerical:
            frame[c] = pd.to_numeric(frame[c], errors="coerce").fillna(0.0)
        return frame

    members, nonmembers, reference, synthetic = map(fill, (members, nonmembers, reference, synthetic))
    transform = ColumnTransformer([("n", StandardScaler(), numerical),
                                   ("c", OneHotEncoder(handle_unknown="ignore", sparse_output=False), categorical)])
    transform.fit(synthetic)
    return [np.asarray(transform.transform(t), dtype=float) for t in (members, nonmembers, synthetic, reference)]


def dcr(x, syn, ref):
    return -cKDTree(syn).query(x, k=1)[0]


def dcr_diff(x, syn, ref):
    return -(cKDTree(syn).query(x, k=1)[0] - cKDTree(ref).query(x, k=1)[0])


def monte_carlo(x, syn, ref):
    d = cKDTree(syn).query(x, k=1)[0]
    radius = np.median(d)
    return np.array([len(v) for v in cKDTree(syn).query_ball_point(x, radius)]) / len(syn)


def dpi(x, syn, ref, k=20):
    index = NearestNeighbors(n_neighbors=k).fit(np.vstack([ref, syn])).kneighbors(x)[1]
    from_reference = (index < len(ref)).sum(axis=1)
    return 1 / (1 + np.exp(-((k - from_reference) / (from_reference + 1e-20))))


def classifier(x, syn, ref):
    model = RandomForestClassifier(random_state=42).fit(np.vstack([ref, syn]), np.r_[np.zeros(len(ref)), np.ones(len(syn))])
    return model.predict_proba(x)[:, 1]


def density(x, syn, ref):
    return stats.gaussian_kde(syn.T).logpdf(x.T)


def domias(x, syn, ref):
    return stats.gaussian_kde(syn.T).logpdf(x.T) - stats.gaussian_kde(ref.T).logpdf(x.T)


def gen_lra(x, syn, ref, k=200):
    before = stats.gaussian_kde(ref.T)
    index = KDTree(syn).query(x, k=min(k, len(syn)))[1]
    out = np.empty(len(x))
    for i, row in enumerate(x):
        after = stats.gaussian_kde(np.vstack([ref, row]).T)
        z = syn[index[i]].T
        out[i] = np.sum(np.log(after.evaluate(z) + 1e-20)) - np.sum(np.log(before.evaluate(z) + 1e-20))
    return out


ATTACKS = {"dcr": dcr, "dcr_diff": dcr_diff, "monte_carlo": monte_carlo, "dpi": dpi, "classifier": classifier,
           "density": density, "domias": domias, "gen_lra": gen_lra}


def peer_aucs(real, synthetic, holdout, types, seed=0) -> dict:
    """Every peer attack's AUC on all members and non-members (or the name of the error it stopped with)."""
    members, nonmembers, syn, ref = encoded_roles(real, synthetic, holdout, types, seed)
    records = np.vstack([members, nonmembers])
    labels = np.r_[np.ones(len(members)), np.zeros(len(nonmembers))]
    out = {}
    for name, attack in ATTACKS.items():
        try:
            scores = np.nan_to_num(attack(records, syn, ref), nan=-1e300, posinf=1e300, neginf=-1e300)
            out[name] = round(float(roc_auc_score(labels, scores)), 4)
        except (np.linalg.LinAlgError, ValueError) as exc:
            out[name] = f"failed: {type(exc).__name__}"
    return out
