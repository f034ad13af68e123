"""The issue-9 figures for certified stopping (rounds, not times): run ``python benchmarks/certified_stopping.py``.

smooth perceptron on make_separable(2000, 20, 0.05, seed 0): rounds to a certified 10 % relative gap, plain
and with ``sharpen_every=5``; the same data with 5 % of the labels flipped: rounds to U_t <= 0.01 and
<= 0.001 (``stops.infeasible``), with the Gordan verdict and the witness residual ||A^T p||.
"""
import numpy as np
from gamedyn.certify import stops
from gamedyn.io import make_separable, signed_rows
from gamedyn.certify import max_margin
from gamedyn.recipes import smooth_perceptron
X, y = make_separable(2000, 20, 0.05, 0)
A = signed_rows(X, y)
print("gamma*", max_margin(A).gamma)
for label, rule in (("plain", stops.margin_within(0.1)), ("sharpen_every=5", stops.margin_within(0.1, sharpen_every=5))):
    r = smooth_perceptron(A, 10_000, stop=rule)
    print("10% gap", label, r.game.rounds, r.certificate.relative_gap)
y = y.copy(); y[::20] *= -1  # 5 % flipped
A = signed_rows(X, y)
for eps in (1e-2, 1e-3):
    r = smooth_perceptron(A, 100_000, stop=stops.infeasible(eps))
    print("flipped 5%: U_t <=", eps, "at round", r.game.rounds, "separable", r.certificate.separable, "||A^T p||", np.linalg.norm(A.T @ r.certificate.p))
