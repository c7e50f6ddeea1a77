"""Sparse PCA against its baselines on sparse spikes with d >> n (Appendix A).

Data: :func:`kpca_lib.datasets.appendices.sparse_spiked`, n = 50 samples,
two spikes of strength 8 on disjoint supports of 10 features, d features.
For each d, over many draws, four estimates of the two loadings:

- PCA: the first two principal loadings;
- varimax of PCA: the same span, rotated (kpca_lib.rotations.varimax);
- PCA thresholded: each principal loading cut to its 10 largest entries
  (the true support size, which the baseline is given for free);
- sparse PCA: kpca_lib.SparsePCA with alpha chosen by cross-validated
  reconstruction (N_FOLDS folds) over fractions of alpha_min, the
  smallest first-sweep threshold sigma_k max_j |V_jk| (of each training fold).

It prints, as mean (standard deviation) over the draws, the |cosine|
between each true loading and its best-matching estimate, and the held-out
R^2 (2000 fresh samples projected onto the span of the estimates, centred
by the training mean) divided by that of the true loadings. The same
setting at d = 500 with fewer draws, folds and fractions is in the
appendix.

Run:  .venv/bin/python benchmarks/bench_sparse_pca.py
"""

import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

import kpca_lib as kl
from kpca_lib.datasets.appendices import sparse_spiked
from kpca_lib.rotations import varimax

N_SAMPLES, N_NONZERO, STRENGTHS = 50, 10, (8.0, 8.0)
DIMENSIONS = (100, 500, 2000)
N_DRAWS, N_FOLDS = 20, 5
FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def reconstruction_r2(X, components, mean):
    """R^2 of the least-squares projection of X - mean onto the span of the rows of components."""
    X_c = X - mean
    codes = np.linalg.lstsq(components.T, X_c.T, rcond=None)[0].T
    return 1.0 - np.sum((X_c - codes @ components) ** 2) / np.sum(X_c**2)


def keep_largest(components, k):
    """Each row cut to its k entries largest in absolute value, renormalised."""
    out = np.zeros_like(components)
    for row, new in zip(components, out):
        top = np.argsort(-np.abs(row))[:k]
        new[top] = row[top]
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def alpha_min(X, q):
    """The smallest first-sweep threshold sigma_k max_j |V_jk| of the first q components."""
    _, s, Vt = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    return float(np.min(s[:q] * np.max(np.abs(Vt[:q]), axis=1)))


def cv_error(X, fraction, q, n_folds, seed=0):
    """Held-out reconstruction error of sparse PCA, relative, over n_folds folds.

    Each fold is fitted at ``fraction`` times its own alpha_min (alpha grows like sqrt(n)).
    """
    folds = np.array_split(np.random.default_rng(seed).permutation(len(X)), n_folds)
    error = total = 0.0
    for test in folds:
        train = np.delete(X, test, axis=0)
        model = kl.SparsePCA(n_components=q, alpha=fraction * alpha_min(train, q)).fit(train)
        X_test = X[test] - model.mean_
        error += np.sum((X_test - model.transform(X[test]) @ model.components_) ** 2)
        total += np.sum(X_test**2)
    return error / total


def estimates(X, q, k):
    """The four estimates of the loadings (as rows) and the chosen fraction of alpha_min."""
    pca = kl.PCA(n_components=q).fit(X).components_
    errors = [cv_error(X, f, q, N_FOLDS) for f in FRACTIONS]
    fraction = FRACTIONS[int(np.argmin(errors))]
    sparse = kl.SparsePCA(n_components=q, alpha=fraction * alpha_min(X, q)).fit(X).components_
    return {"PCA": pca, "varimax of PCA": varimax(pca.T)[0].T,
            "PCA thresholded": keep_largest(pca, k), "sparse PCA (CV)": sparse}, fraction


def main():
    _ = threadpool_limits(limits=1, user_api="blas")
    q = len(STRENGTHS)
    print(f"n = {N_SAMPLES}, spikes {STRENGTHS} on {N_NONZERO} features each, {N_DRAWS} draws, "
          f"{N_FOLDS}-fold CV, load average = {os.getloadavg()[0]:.1f}")
    print(f"{'d':>5} {'method':>16} {'|cosine|':>14} {'held-out R^2 / truth':>21}")
    for d in DIMENSIONS:
        start = time.perf_counter()
        test = sparse_spiked(n_samples=2000, n_features=d, n_nonzero=N_NONZERO,
                             strengths=STRENGTHS, random_state=10_000)
        scores, fractions = {}, []
        for seed in range(N_DRAWS):
            train = sparse_spiked(n_samples=N_SAMPLES, n_features=d, n_nonzero=N_NONZERO,
                                  strengths=STRENGTHS, random_state=seed)
            mean = train.X.mean(axis=0)
            truth = reconstruction_r2(test.X, train.loadings.T, mean)
            found, fraction = estimates(train.X, q, N_NONZERO)
            fractions.append(fraction)
            for name, rows in found.items():
                cosine = np.mean(np.max(np.abs(train.loadings.T @ rows.T), axis=1))
                scores.setdefault(name, []).append(
                    (cosine, reconstruction_r2(test.X, rows, mean) / truth))
        for name, values in scores.items():
            mean_, sd = np.mean(values, axis=0), np.std(values, axis=0)
            print(f"{d:>5} {name:>16} {mean_[0]:>6.2f} ({sd[0]:.2f}) {mean_[1]:>13.2f} ({sd[1]:.2f})")
        wins = sum(s[0] > t[0] for s, t in zip(scores["sparse PCA (CV)"], scores["PCA thresholded"]))
        print(f"{d:>5} sparse PCA closer than thresholded PCA in {wins} of {N_DRAWS} draws; "
              f"CV fractions of alpha_min from {min(fractions)} to {max(fractions)}; "
              f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
