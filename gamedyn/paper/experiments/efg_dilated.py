r"""The dilated-entropy recipes' rows of ``gamedyn reproduce`` (group ``extensive-form games``; issue 33).

* **Equivalences** (one row per recipe): :func:`gamedyn.recipes.dilated_hedge`, ``optimistic_dilated_hedge``,
  ``mmd`` (its halving schedule) and ``optimistic_mmd`` (its decreasing schedule) against their original loops
  (:func:`gamedyn.games.efg.original_dilated.dilated`: behavioural tables keyed by information state, the
  prox as Hoda et al.'s recursion with the full gradient of R): the largest relative error of the averages and
  plays (of the last iterates for MMD), against 1e-10.
* **MMD's fixed point**: with a constant alpha the last iterate is the alpha-QRE found independently by a
  damped fixed-point iteration of the logit best response (Sokota et al. 2023, Thm 3.4): the largest entry gap.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DILATED_FORMS", "dilated_claims", "dilated_equivalence_error"]

DILATED_FORMS: dict[str, tuple[str, dict]] = {  # recipe -> (the original loop's method, the options of both)
    "dilated_hedge": ("ftrl", dict(eta=2.0)),
    "optimistic_dilated_hedge": ("oftrl", dict(eta=2.0)),
    "mmd": ("mmd", dict(eta=2.0, alpha=0.3, schedule="halving", stage=4)),
    "optimistic_mmd": ("ommd", dict(eta=2.0, alpha=0.3, schedule="decreasing", stage=3, growth=1.5)),
}
REFERENCES = {"dilated_hedge": "Hoda, Gilpin, Peña & Sandholm 2010", "optimistic_dilated_hedge": "Farina, Kroer & "
              "Sandholm 2019", "mmd": "Sokota et al. 2023",
              "optimistic_mmd": "Sokota et al. 2023; Rakhlin & Sridharan 2013"}
GAMES = {"quick": (("kuhn_poker", 10), ("leduc_poker", 2)),
         "default": (("kuhn_poker", 40), ("goofspiel(3)", 12), ("liars_dice(2)", 12), ("leduc_poker", 4)),
         "full": (("kuhn_poker", 200), ("goofspiel(4)", 30), ("liars_dice(3)", 30), ("leduc_poker", 10))}
TOLERANCE = 1e-10


def _vector(game, player, values) -> np.ndarray:
    vector = np.zeros(game.treeplexes[player].dimension)
    vector[0] = 1.0
    for (infoset, action), value in values.items():
        vector[game.sequence(player, infoset, action)] = value
    return vector


def _relative(value, reference) -> float:
    value, reference = np.asarray(value, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    return float(np.linalg.norm(value - reference) / np.linalg.norm(reference))


def dilated_equivalence_error(recipe: str, game_name: str, T: int) -> float:
    """The largest relative error of ``recipe`` against its original loop (averages and plays; MMD: last iterates)."""
    import gamedyn.recipes as recipes
    from gamedyn.games.efg import load_game, original_dilated
    from gamedyn.recipes.mmd import alpha_at

    game = load_game(game_name)
    method, options = DILATED_FORMS[recipe]
    alpha = (lambda t: alpha_at(t, options["alpha"], options["schedule"], options["stage"])) if method == "mmd" else 0.0
    restart = None
    if method == "ommd":
        alpha, restart = _decreasing_schedule(T, options["alpha"], options["stage"], options["growth"])
    path = original_dilated.dilated(game.rules, T, method=method, eta=options["eta"], alpha=alpha, restart=restart)
    result = getattr(recipes, recipe)(game, T, record=True, **options)
    if method in ("mmd", "ommd"):
        return max(_relative(result.x, _vector(game, 0, path.last[0])), _relative(result.y, _vector(game, 1, path.last[1])))
    errors = [_relative(result.x, _vector(game, 0, path.x)), _relative(result.y, _vector(game, 1, path.y))]
    for player, seat in ((0, "w"), (1, "p")):
        errors.append(_relative(result.game.trace[seat], [_vector(game, player, forms[player]) for forms in path.plays]))
    return max(errors)


def _decreasing_schedule(T: int, alpha: float, stage: int, growth: float) -> tuple:
    """Optimistic MMD's schedule for the original loop: alpha_t (alpha 2^-k in stage k) and whether a stage ends at t."""
    from gamedyn.recipes.mmd import stage_lengths

    alphas: list = []
    ends = set()
    for k, rounds in enumerate(stage_lengths(T, stage, growth)):
        alphas += [alpha * 0.5 ** k] * rounds
        ends.add(len(alphas))
    return (lambda t: alphas[t - 1]), (lambda t: t in ends)


def _equivalence_check(recipe: str):
    def check(context):
        from gamedyn.paper.claims import Measurement

        worst, where = -1.0, ""
        for game_name, T in GAMES[context.profile.name]:
            error = dilated_equivalence_error(recipe, game_name, T)
            if not error <= worst:  # NaN counts as the worst
                worst, where = error, f"{game_name}, T = {T}"
        return Measurement(worst, TOLERANCE, bool(worst <= TOLERANCE), f"worst: {where}")

    return check


def _qre_check(context):
    from gamedyn.games.efg import kuhn_poker, original_dilated
    from gamedyn.paper.claims import Measurement
    from gamedyn.recipes import mmd

    game, alpha = kuhn_poker(), 0.1
    qx, qy, iterations = original_dilated.qre_fixed_point(game.rules, alpha, damping=0.2)
    result = mmd(game, 3000, eta=1.0, alpha=alpha, schedule="constant")
    gap = max(float(np.abs(result.x - _vector(game, 0, qx)).max()), float(np.abs(result.y - _vector(game, 1, qy)).max()))
    return Measurement(gap, 1e-8, bool(gap <= 1e-8), f"Kuhn, alpha = {alpha}, T = 3000; the logit iteration settled in "
                                                      f"{iterations} steps")


def dilated_claims() -> list:
    """The ``gamedyn reproduce`` rows of the dilated-entropy recipes (see the module docstring)."""
    from gamedyn.paper.claims import Claim

    claims = [Claim(f"{recipe} = its original loop", f"{recipe} on the built-in games equals "
                    f"original_dilated.dilated(method={method!r}) (Hoda et al.'s recursion)", "extensive-form games",
                    (recipe, REFERENCES[recipe]), "max rel err", "<=", _equivalence_check(recipe))
              for recipe, (method, _) in DILATED_FORMS.items()]
    claims.append(Claim("MMD: last iterate = the alpha-QRE", "mmd with a constant alpha reaches the QRE of a damped "
                        "logit fixed-point iteration", "extensive-form games", ("mmd", "Sokota et al. 2023"),
                        "max |x - qre|", "<=", _qre_check))
    return claims
