"""Deprecated: ``gamedyn.original`` moved to :mod:`gamedyn.games.margin.original` (issue 17).

Importing ``gamedyn.original`` still works for one release: it warns once (a ``DeprecationWarning`` naming
the new path) and gives the same objects as the new modules.
"""

from gamedyn.core.deprecation import moved

moved(__name__, "gamedyn.original", {
    "AcceleratedPNormTrajectory": "gamedyn.games.margin.original",
    "AcceleratedPerceptronTrajectory": "gamedyn.games.margin.original",
    "MirrorProxTrajectory": "gamedyn.games.margin.original",
    "NAGTrajectory": "gamedyn.games.margin.original",
    "SmoothPerceptronTrajectory": "gamedyn.games.margin.original",
    "accelerated_perceptron": "gamedyn.games.margin.original",
    "accelerated_pnorm_perceptron": "gamedyn.games.margin.original",
    "mirror_prox": "gamedyn.games.margin.original",
    "nag": "gamedyn.games.margin.original",
    "perceptron": "gamedyn.games.margin.original",
    "pnorm_perceptron": "gamedyn.games.margin.original",
    "smooth_perceptron": "gamedyn.games.margin.original",
}, also={
    "check_count": "gamedyn.core.validation",
    "check_matrix": "gamedyn.core.validation",
    "check_positive": "gamedyn.core.validation",
    "log_sum_exp": "gamedyn.core.numerics",
    "pnorm_link": "gamedyn.core.numerics",
    "softmin": "gamedyn.core.numerics",
})
