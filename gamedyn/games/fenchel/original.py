r"""The published forms of Frank-Wolfe, Nesterov's method and heavy ball, written without the runner.

Each loop takes the objective's gradient and the constraint set as plain data, with its own linear
minimisation oracle and projection (not the domains' methods), so that the equivalence tests
compare two independent computations.

* :func:`frank_wolfe` (Frank & Wolfe 1956; step :math:`c_t=2/(t+1)`, Jaggi 2013):
  :math:`x_0` = the set's centre; :math:`s_t=\arg\min_{s\in K}\langle\nabla f(x_{t-1}),s\rangle`,
  :math:`x_t=(1-c_t)x_{t-1}+c_ts_t`. Returns :math:`x_T`.
* :func:`accelerated_gradient`, Nesterov's method in the "similar triangles" (Auslender-Teboulle)
  form, the form Wang & Abernethy (2018) extract from their game: with :math:`\beta_t=2/(t+1)`,
  :math:`v_t=(1-\beta_t)w_{t-1}+\beta_tz_{t-1}`, :math:`z_t=\Pi_K(z_{t-1}-\gamma t\nabla f(v_t))`,
  :math:`w_t=(1-\beta_t)w_{t-1}+\beta_tz_t`, :math:`z_0=w_0=x_0`. Returns :math:`w_T`.
* :func:`heavy_ball`, Polyak's method with the game's coefficients:
  :math:`x_t=x_{t-1}-\eta_t\nabla f(x_{t-1})+\mu_t(x_{t-1}-x_{t-2})`,
  :math:`\eta_t=2\gamma t/(t+1)`, :math:`\mu_t=(t-2)/(t+1)` (:math:`x_{-1}=x_0`). Returns :math:`x_T`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["accelerated_gradient", "frank_wolfe", "heavy_ball", "linear_oracle", "projection", "start_point"]


def linear_oracle(kind: str, parameters, g):
    """argmin over the set of <g, s>: simplex vertex, -r g/||g||, signed l1 vertex, box corner."""
    g = np.asarray(g, dtype=np.float64)
    if kind == "simplex":
        s = np.zeros_like(g)
        s[np.argmin(g)] = 1.0
        return s
    if kind == "ball":
        norm = np.sqrt(g @ g)
        return np.zeros_like(g) if norm == 0 else -parameters * g / norm
    if kind == "l1":
        s = np.zeros_like(g)
        i = np.argmax(np.abs(g))
        if g[i] != 0:
            s[i] = -parameters if g[i] > 0 else parameters
        return s
    if kind == "box":
        lower, upper = parameters
        s = (lower + upper) / 2
        s = np.where(g > 0, lower, s)
        return np.where(g < 0, upper, s)
    raise ValueError(f"unknown set {kind!r}")


def projection(kind: str, parameters, z):
    """Euclidean projection onto R^d ("reals") or the l2 ball of radius ``parameters``."""
    if kind == "reals":
        return z
    if kind == "ball":
        norm = np.sqrt(z @ z)
        return z if norm <= parameters else parameters * z / norm
    raise ValueError(f"no projection for {kind!r} here")


def start_point(kind: str, parameters, dimension: int):
    """The set's centre: uniform on the simplex, 0 on R^d and the balls, the box's midpoint."""
    if kind == "simplex":
        return np.ones(dimension) / dimension
    if kind == "box":
        return (parameters[0] + parameters[1]) / 2
    return np.zeros(dimension)


def frank_wolfe(gradient, kind: str, parameters, dimension: int, T: int, x0=None):
    """x_T of Frank-Wolfe with c_t = 2/(t+1) from x_0 (default: the set's centre)."""
    x = start_point(kind, parameters, dimension) if x0 is None else np.array(x0, dtype=np.float64)
    for t in range(1, T + 1):
        s = linear_oracle(kind, parameters, gradient(x))
        c = 2.0 / (t + 1)
        x = (1 - c) * x + c * s
    return x


def accelerated_gradient(gradient, step: float, x0, T: int, kind: str = "reals", parameters=None):
    """w_T of the similar-triangles form of Nesterov's method, z-step gamma * t (gamma = ``step``)."""
    z = np.array(x0, dtype=np.float64)
    w = z.copy()
    for t in range(1, T + 1):
        beta = 2.0 / (t + 1)
        v = (1 - beta) * w + beta * z
        z = projection(kind, parameters, z - step * t * gradient(v))
        w = (1 - beta) * w + beta * z
    return w


def heavy_ball(gradient, step: float, x0, T: int):
    """x_T of heavy ball with eta_t = 2 gamma t/(t+1), mu_t = (t-2)/(t+1), x_{-1} = x_0 (gamma = ``step``)."""
    x = np.array(x0, dtype=np.float64)
    previous = x.copy()
    for t in range(1, T + 1):
        eta, mu = 2.0 * step * t / (t + 1), (t - 2.0) / (t + 1)
        x, previous = x - eta * gradient(x) + mu * (x - previous), x
    return x
