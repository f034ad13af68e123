r"""The CFR family's rows of ``gamedyn reproduce`` (group ``extensive-form games``).

* **Equivalences** (one row per recipe): :func:`gamedyn.recipes.cfr`, ``cfr_plus``, ``dcfr`` and
  ``pcfr_plus`` against their original-form loops (:func:`gamedyn.games.efg.original.cfr`, the papers'
  recursive walk over histories with per-infoset tables) on every built-in game: the largest
  relative error of the averages and of every play, against 1e-10. A plausible wrong algorithm
  (simultaneous instead of alternating updates, uniform instead of linear averaging, regrets not
  clipped, OpenSpiel's averaging index) is off by far more (``benchmarks/mutants.py``). Leduc's rounds
  stop at 30: there the dynamics themselves amplify rounding (a relative perturbation of 1e-15 in
  A changes DCFR's plays by 1e-9 after 50 rounds and CFR+'s by 1e-2 after 200, measured), so two
  correct computations that sum in different orders (the history walk, the sequence-form pass)
  part at 5e-10 after 50 rounds; up to 30 they agree to 1.2e-12, and Kuhn, Goofspiel(4) and Liar's
  dice(3) to 7.4e-11 after 200.
* **Regret bounds** (CFR's RM and CFR+'s RM+ on every infoset, in self-play): the measured treeplex
  regret against :math:`\max_{x}\sum_jx_{p(j)}\sqrt{\sum_t\|r^j_t\|^2}` (the laminar decomposition,
  Farina, Kroer & Sandholm 2019, Thm 1, with RM's and RM+'s bound on each infoset), itself at most
  :math:`\Delta|J|\sqrt{\max_j|A_j|}\sqrt T` (Zinkevich et al. 2007, Thm 4): the largest ratio, <= 1.
* **Certified values**: CFR+'s certified bracket contains Kuhn's value -1/18 and Leduc's value from
  the exact sequence-form LP (:func:`gamedyn.games.efg.sequence_form_lp`).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["EQUIVALENCE_GAMES", "ORIGINAL_FORMS", "efg_claims", "equivalence_error", "regret_ratio"]

ORIGINAL_FORMS = {  # recipe -> the original loop's local rule, order and averaging exponent (the recipe's defaults)
    "cfr": dict(local="rm", order="simultaneous", averaging=0),
    "cfr_plus": dict(local="rm+", order="alternating", averaging=1),
    "dcfr": dict(local="dcfr", order="alternating", averaging=2, alpha=1.5, beta=0.0),
    "pcfr_plus": dict(local="prm+", order="alternating", averaging=2, prediction="counterfactual"),
}
REFERENCES = {"cfr": "Zinkevich, Johanson, Bowling & Piccione 2007", "cfr_plus": "Tammelin 2014",
              "dcfr": "Brown & Sandholm 2019", "pcfr_plus": "Farina, Kroer & Sandholm 2021"}
EQUIVALENCE_GAMES = {  # profile -> (game, horizon T) pairs; the original walks every history every iteration
    "quick": (("kuhn_poker", 20), ("goofspiel(3)", 10), ("liars_dice(3)", 5), ("leduc_poker", 2)),
    "default": (("kuhn_poker", 100), ("goofspiel(4)", 20), ("liars_dice(3)", 20), ("leduc_poker", 4)),
    "full": (("kuhn_poker", 200), ("goofspiel(4)", 200), ("liars_dice(3)", 200), ("leduc_poker", 30)),
}
REGRET_GAMES = {"quick": (("kuhn_poker", 100),), "default": (("kuhn_poker", 500), ("leduc_poker", 100)),
                "full": (("kuhn_poker", 1000), ("leduc_poker", 200), ("goofspiel(4)", 300))}
VALUE_HORIZONS = {"quick": (("kuhn_poker", 300),), "default": (("kuhn_poker", 1000), ("leduc_poker", 300)),
                  "full": (("kuhn_poker", 5000), ("leduc_poker", 1000))}
TOLERANCE = 1e-10


def _relative(value, reference) -> float:
    value, reference = np.asarray(value, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    return float(np.linalg.norm(value - reference) / np.linalg.norm(reference))


def _vector(game, player, values) -> np.ndarray:
    vector = np.zeros(game.treeplexes[player].dimension)
    vector[0] = 1.0
    for (infoset, action), value in values.items():
        vector[game.sequence(player, infoset, action)] = value
    return vector


def equivalence_error(recipe: str, game_name: str, T: int) -> float:
    """The largest relative error, over both players' averages and plays, of ``recipe`` against its original loop."""
    import gamedyn.recipes as recipes
    from gamedyn.games.efg import load_game, original

    game = load_game(game_name)
    path = original.cfr(game.rules, T, trajectory=True, **ORIGINAL_FORMS[recipe])  # type: ignore[arg-type]
    result = getattr(recipes, recipe)(game, T, record=True)
    errors = [_relative(result.x, _vector(game, 0, path.x)), _relative(result.y, _vector(game, 1, path.y))]
    for player, seat in ((0, "w"), (1, "p")):
        errors.append(_relative(result.game.trace[seat], [_vector(game, player, forms[player]) for forms in path.plays]))
    return max(errors)


def _payoff_range(game) -> float:
    from gamedyn.games.efg.rules import CHANCE, TERMINAL

    rules, stack, values = game.rules, [game.rules.initial()], []
    while stack:
        state = stack.pop()
        kind = rules.to_move(state)
        if kind == TERMINAL:
            values.append(rules.returns(state))
        elif kind == CHANCE:
            stack.extend(rules.child(state, a) for a, _ in rules.chance_outcomes(state))
        else:
            stack.extend(rules.child(state, a) for a in rules.legal_actions(state))
    return max(values) - min(values)


def regret_ratio(local: str, game_name: str, T: int) -> tuple:
    """``(measured / laminar bound, laminar bound / Zinkevich's bound)``, the larger over the two players, of
    ``local`` ("rm" or "rm+") in simultaneous self-play for T rounds."""
    from gamedyn.core.counterfactual import CounterfactualRegret, counterfactual_regrets
    from gamedyn.games.efg import load_game

    game = load_game(game_name)
    payoff = game.payoff()
    learners = [CounterfactualRegret(treeplex, local) for treeplex in game.treeplexes]
    players = [learner.player(learner.init(treeplex.dimension)) for learner, treeplex in zip(learners, game.treeplexes)]
    squares = [np.zeros(treeplex.dimension) for treeplex in game.treeplexes]
    loss_sums = [np.zeros(treeplex.dimension) for treeplex in game.treeplexes]
    played = [0.0, 0.0]
    for _ in range(T):
        x, y = players[0].play(1.0), players[1].play(1.0)
        for p, (point, loss) in enumerate(((x, payoff.loss_for_w(y)), (y, payoff.loss_for_p(x)))):
            regret, _ = counterfactual_regrets(game.treeplexes[p], -loss.linear, players[p].behaviour)
            squares[p] += regret * regret
            loss_sums[p] += loss.linear
            played[p] += float(loss.linear @ point)
            players[p].update(point, loss, 1.0)
    delta = _payoff_range(game)
    worst, loose = 0.0, 0.0
    for p, treeplex in enumerate(game.treeplexes):
        measured = played[p] - treeplex.best_response_value(loss_sums[p])
        laminar = treeplex.best_response_value(treeplex.spread(np.sqrt(treeplex.segment_sum(squares[p]))), maximize=True)
        zinkevich = delta * treeplex.number_of_infosets * math.sqrt(int(np.max(treeplex.sizes))) * math.sqrt(T)
        worst, loose = max(worst, measured / laminar), max(loose, laminar / zinkevich)
    return worst, loose


def _equivalence_check(recipe: str):
    def check(context):
        from gamedyn.paper.claims import Measurement

        worst, where = -1.0, ""
        for game_name, T in EQUIVALENCE_GAMES[context.profile.name]:
            error = equivalence_error(recipe, game_name, T)
            if not error <= worst:  # NaN counts as the worst
                worst, where = error, f"{game_name}, T = {T}"
        return Measurement(worst, TOLERANCE, bool(worst <= TOLERANCE), f"worst: {where} (averages and every play)")

    return check


def _regret_check(context):
    from gamedyn.paper.claims import Measurement

    worst, where, loose = -1.0, "", 0.0
    for local in ("rm", "rm+"):
        for game_name, T in REGRET_GAMES[context.profile.name]:
            ratio, zinkevich = regret_ratio(local, game_name, T)
            loose = max(loose, zinkevich)
            if not ratio <= worst:
                worst, where = ratio, f"{local} on {game_name}, T = {T}"
    passed = bool(worst <= 1.0 and loose <= 1.0)
    return Measurement(worst, 1.0, passed, f"tightest: {where}; the laminar bound is at most {loose:.3f} of "
                                           "Delta |J| sqrt(max |A_j|) sqrt(T)")


def _value_check(context):
    from gamedyn.games.efg import load_game, sequence_form_lp
    from gamedyn.paper.claims import Measurement
    from gamedyn.recipes import cfr_plus

    worst, details = -math.inf, []
    for game_name, T in VALUE_HORIZONS[context.profile.name]:
        game = load_game(game_name)
        value = -1.0 / 18.0 if game_name == "kuhn_poker" else sequence_form_lp(game)[0]
        result = cfr_plus(game, T)
        outside = max(result.lower - value, value - result.upper)  # <= 0 inside the bracket
        worst = max(worst, outside)
        details.append(f"{game_name} T = {T}: v* = {value:.6f} in [{result.lower:.6f}, {result.upper:.6f}] "
                       f"(exploitability {result.exploitability:.1e})")
    return Measurement(worst, 0.0, bool(worst <= 0.0), "; ".join(details))


def efg_claims() -> list:
    """The ``gamedyn reproduce`` rows of the extensive-form family (see the module docstring)."""
    from gamedyn.paper.claims import Claim

    claims = [Claim(f"{recipe} = its original loop", f"{recipe} on the built-in games equals "
                    f"original.cfr(local={form['local']!r}, order={form['order']!r}, averaging t^{form['averaging']}): "
                    "every play and both averages", "extensive-form games", (recipe, REFERENCES[recipe]),
                    "max rel err", "<=", _equivalence_check(recipe))
              for recipe, form in ORIGINAL_FORMS.items()]
    claims.append(Claim("CFR / CFR+: laminar regret bounds", "RM and RM+ on every infoset (self-play): treeplex regret <= "
                        "max_x sum_j x_p(j) sqrt(sum_t ||r_t^j||^2) <= Delta |J| sqrt(|A|) sqrt(T)",
                        "extensive-form games", ("cfr", "cfr_plus", "Zinkevich et al. 2007", "Farina et al. 2019"),
                        "max R_T/bound", "<=", _regret_check))
    claims.append(Claim("CFR+: certified value bracket", "cfr_plus's certified bracket contains v* (Kuhn -1/18; Leduc "
                        "by the exact sequence-form LP)", "extensive-form games", ("cfr_plus", "Tammelin 2014"),
                        "max excess", "<=", _value_check))
    return claims
