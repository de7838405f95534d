"""The 2-parameter IRT fit of the question analytics: girth.twopl_jml's joint maximum likelihood, faster.

Pure (no Django). Same model, start, bounds, identification and stopping rule as ``girth.twopl_jml``;
each conditional step is solved for all items (or teams) at once (Newton in the logistic-regression
parameters, ``scipy.optimize`` L-BFGS-B with analytic gradients for items on the bounds) instead of one
numeric-gradient SLSQP call per item; team abilities by ``girth.ability_map``. Why, and the
measurements against girth: docs/statistics.md ("Item response theory"). Split from
``recam.analytics`` (which re-exports ``fit_2pl`` and the constants) to keep both modules small.
"""

import warnings

import numpy as np
from scipy import optimize

# girth's defaults for joint maximum likelihood: at most 25 rounds, stop when no difficulty moves 1e-3.
IRT_ITERATIONS = 25
IRT_TOLERANCE = 1e-3
DISCRIMINATION_BOUNDS = (0.25, 4.0)  # girth.twopl_jml's bounds
DIFFICULTY_BOUNDS = ABILITY_BOUNDS = (-6.0, 6.0)
IRT_METHOD = "2PL joint ML by girth.twopl_jml's rule, vectorised steps (Newton, bounded items by L-BFGS-B); girth.ability_map"


def _loss(z: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """Bernoulli-logit negative log-likelihood of z (sum) and its derivative per cell, one exp shared."""
    e = np.exp(-np.abs(z))
    p = np.where(z >= 0, 1.0, e) / (1.0 + e)
    return float((np.maximum(z, 0) + np.log1p(e) - y * z).sum()), p - y


def _item_loss(alpha: np.ndarray, beta: np.ndarray, y: np.ndarray, theta: np.ndarray) -> np.ndarray:
    z = alpha[:, None] * theta[None, :] + beta[:, None]
    return (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z))) - y * z).sum(axis=1)


def _newton_items(
    y: np.ndarray, theta: np.ndarray, a: np.ndarray, b: np.ndarray, rounds: int = 30
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unbounded per-item ML by Newton with step halving, all items at once, in the logistic-regression
    parameters alpha = a, beta = -a * b (where each item's likelihood is convex). Returns a, b, converged."""
    alpha, beta = a.astype(float).copy(), -a * b
    t1, t2 = theta[None, :], theta[None, :] ** 2
    done = np.zeros(len(a), dtype=bool)
    loss = _item_loss(alpha, beta, y, theta)
    for _ in range(rounds):
        _, r = _loss(alpha[:, None] * t1 + beta[:, None], y)
        p = r + y
        w = p * (1 - p)
        g1, g2 = (r * t1).sum(axis=1), r.sum(axis=1)
        h11, h12, h22 = (w * t2).sum(axis=1), (w * t1).sum(axis=1), w.sum(axis=1)
        det = h11 * h22 - h12**2
        with np.errstate(divide="ignore", invalid="ignore"):
            s1, s2 = (h22 * g1 - h12 * g2) / det, (h11 * g2 - h12 * g1) / det
        s1, s2 = np.where(np.isfinite(s1), s1, 0.0), np.where(np.isfinite(s2), s2, 0.0)
        done = np.maximum(np.abs(s1), np.abs(s2)) < 1e-8
        with np.errstate(divide="ignore", invalid="ignore"):
            settled = done | ~_inside(alpha, -beta / alpha)
        if settled.all():  # the rest go to the bounded solver anyway
            break
        step = np.ones(len(a))
        for _ in range(20):  # halve the step of every item whose likelihood got worse
            new = _item_loss(alpha - step * s1, beta - step * s2, y, theta)
            worse = new > loss + 1e-12
            if not worse.any():
                break
            step = np.where(worse, step / 2, step)
        alpha, beta, loss = alpha - step * s1, beta - step * s2, np.minimum(new, loss)
    with np.errstate(divide="ignore", invalid="ignore"):
        return alpha, -beta / alpha, done


def _inside(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Strictly inside girth's box (nan, e.g. alpha 0, is outside)."""
    with np.errstate(invalid="ignore"):
        a_in = (a > DISCRIMINATION_BOUNDS[0]) & (a < DISCRIMINATION_BOUNDS[1])
        return a_in & (b > DIFFICULTY_BOUNDS[0]) & (b < DIFFICULTY_BOUNDS[1])


def _item_step(
    y: np.ndarray, theta: np.ndarray, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Item parameters given abilities. Each item's 2PL likelihood is convex in (alpha, beta) and the box
    a in [0.25, 4], b in [-6, 6] is convex there too, so an unbounded optimum inside the box is the bounded
    one. Items whose optimum is outside (separating or negatively discriminating items) are solved with
    bounds by one L-BFGS-B over all of them (separable, so each reaches its own optimum)."""
    a_new, b_new, done = _newton_items(y, theta, a, b)
    inside = done & _inside(a_new, b_new)
    rest = np.flatnonzero(~inside)
    a_out, b_out = np.where(inside, a_new, a), np.where(inside, b_new, b)
    if rest.size:
        a_out[rest], b_out[rest] = _bounded_items(y[rest], theta, a[rest], b[rest])
    return a_out, b_out


def _bounded_items(
    y: np.ndarray, theta: np.ndarray, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Items with an optimum on the bounds: girth's box, one L-BFGS-B (analytic gradient) for all of them."""
    n = len(a)

    def nll(x: np.ndarray) -> tuple[float, np.ndarray]:
        d = theta[None, :] - x[n:, None]
        f, r = _loss(x[:n, None] * d, y)
        return f, np.concatenate([(r * d).sum(axis=1), -x[:n] * r.sum(axis=1)])

    bounds = [DISCRIMINATION_BOUNDS] * n + [DIFFICULTY_BOUNDS] * n
    start = np.concatenate([np.clip(a, *DISCRIMINATION_BOUNDS), np.clip(b, *DIFFICULTY_BOUNDS)])
    x = optimize.minimize(nll, start, jac=True, method="L-BFGS-B", bounds=bounds).x
    return x[:n], x[n:]


def _ability_step(y: np.ndarray, theta: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Abilities given items (separable per team, bounded like girth's), then standardised to identify."""

    def nll(t: np.ndarray) -> tuple[float, np.ndarray]:
        f, r = _loss(a[:, None] * (t[None, :] - b[:, None]), y)
        return f, a @ r

    bounds = [ABILITY_BOUNDS] * len(theta)
    t = optimize.minimize(nll, theta, jac=True, method="L-BFGS-B", bounds=bounds).x
    return (t - t.mean()) / t.std(ddof=1)


def fit_2pl(
    data: np.ndarray, *, max_iteration: int = IRT_ITERATIONS, tolerance: float = IRT_TOLERANCE
) -> dict[str, np.ndarray]:
    """2PL joint maximum likelihood of an (items x persons) 0/1 matrix, girth.twopl_jml's algorithm.

    Start: discrimination 1, girth's ``mml_approx`` difficulties, abilities 0; persons with all or none
    right are left out of the fit (their JML ability is infinite), as girth does (ValueError if fewer
    than 2 remain); alternate abilities and items until no difficulty moves more than ``tolerance``.
    Returns girth's keys.
    """
    from girth.utilities import mml_approx

    y = np.asarray(data, dtype=float)
    a = np.ones(y.shape[0])
    b = np.asarray(mml_approx(y.astype(int), a), dtype=float)
    y = y[:, (y.sum(axis=0) > 0) & (y.sum(axis=0) < y.shape[0])]
    if y.shape[1] < 2:  # the abilities cannot be standardised
        raise ValueError("fewer than 2 teams with both right and wrong answers")
    theta = np.zeros(y.shape[1])
    for _ in range(max_iteration):
        previous = b.copy()
        theta = _ability_step(y, theta, a, b)
        a, b = _item_step(y, theta, a, b)
        if np.abs(previous - b).max() < tolerance:
            break
    return {"Discrimination": a, "Difficulty": b}


def irt_fit(
    *, correct: np.ndarray, notes: list[str], max_iteration: int = IRT_ITERATIONS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Difficulty, discrimination (per question) and ability (per team) of a (teams x questions) 0/1 matrix.

    Fitted over the questions that vary (nan for the others); why it was not fitted is appended to
    ``notes`` (shown on the analytics page) rather than raised: the rest of the analytics still stand.
    """
    import girth

    n_teams, n_items = correct.shape
    difficulty, discrimination = np.full(n_items, np.nan), np.full(n_items, np.nan)
    ability = np.full(n_teams, np.nan)
    varied = correct.min(axis=0) != correct.max(axis=0)
    if n_teams < 3 or varied.sum() < 2:
        notes.append("IRT not fitted: fewer than 3 teams or 2 questions that separate them")
        return difficulty, discrimination, ability
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        data = correct[:, varied].T.astype(int)
        try:
            fit = fit_2pl(data, max_iteration=max_iteration)
        except ValueError as exc:
            notes.append(f"IRT not fitted: {exc}")
            return difficulty, discrimination, ability
        difficulty[varied], discrimination[varied] = fit["Difficulty"], fit["Discrimination"]
        ability[:] = girth.ability_map(data, fit["Difficulty"], fit["Discrimination"])
    return difficulty, discrimination, ability
