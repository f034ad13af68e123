"""Issue 34's teaching pictures: the data behind them says what the tutorial says, and the figures are written."""

import numpy as np
import pytest

from gamedyn import plot
from gamedyn.games.general_sum import cce_gap, chicken, coordination_game, jordan_game, shapley_game
from gamedyn.games.general_sum.lp import cce_constraints


def test_coordination_dynamics_settle_on_the_payoff_dominant_profile():
    game = coordination_game()
    paths = plot.matrix_game_dynamics(game.A, 2000, B=game.B)
    assert len(paths) == 4
    for label, points in paths.items():
        assert points.shape == (2000, 3)
        assert np.abs(points[-1] - [0.0, 0.0, 1.0]).max() < 1e-3, label


def test_fictitious_play_cycles_in_shapleys_game():
    game = shapley_game()
    paths = plot.matrix_game_dynamics(game.A, 3000, B=game.B, row_start=plot.SHAPLEY_START,
                                      column_start=plot.SHAPLEY_START)
    fictitious = next(points for label, points in paths.items() if label.startswith("fictitious"))
    distance = np.abs(fictitious - 1 / 3).max(axis=1)
    assert distance[1000:].min() > 0.1  # its averages never come near the uniform equilibrium: Shapley's cycle
    assert distance[1000:].max() > 0.25 and distance[1000:].max() >= 0.9 * distance[100:1000].max()  # no spiral in


def test_fictitious_play_does_not_converge_in_jordans_game():
    paths = plot.game_dynamics(jordan_game(), 3000, starts=plot.JORDAN_STARTS)
    fictitious = next(players for label, players in paths.items() if label.startswith("fictitious"))
    assert len(fictitious) == 3 and all(path.shape == (3000, 2) for path in fictitious)
    late = np.max([np.abs(path[1000:, 0] - 0.5).max() for path in fictitious])
    assert late > 0.25  # the averages keep swinging (Jordan 1993)


def test_the_joint_of_play_enters_the_cce_set():
    import scipy.optimize

    from gamedyn import FTRL, Entropy
    from gamedyn.engine.players import PlaysTrace, play_n
    from gamedyn.games.general_sum import ProductJoint

    game = chicken()
    data = plot.joint_convergence(game, T=400, checkpoints=8, directions=24)
    rows = cce_constraints(game)
    for vertex in data["cce_polygon"]:  # each traced vertex is the shadow of a CCE: an LP finds one
        found = scipy.optimize.linprog(np.zeros(4), A_ub=rows, b_ub=np.zeros(4),
                                       A_eq=np.vstack([np.ones(4), np.eye(4)[1], np.eye(4)[2]]),
                                       b_eq=[1.0, vertex[0], vertex[1]], bounds=(0, None), method="highs")
        assert found.status == 0
    for label, path in data["paths"].items():
        gaps, distances = data["cce_gap"][label], data["distance"][label]
        assert path.shape == (400, 2) and gaps[0] > 0.1
        assert gaps[-1] < 0.05 * gaps[0] and distances[-1] < 0.05 * distances[0]
    trace = PlaysTrace()  # the picture's last gap is the certified gap of the joint, recomputed here
    result = play_n(game, [FTRL(Entropy(), 0.1)] * 2, 400, initial=[np.array([0.6, 0.4]), np.array([0.3, 0.7])],
                    observers=[trace])
    recomputed = cce_gap(game, ProductJoint.from_trace(result.observed["trace"]))
    assert data["cce_gap"]["Hedge (eta = 0.1)"][-1] == pytest.approx(recomputed, rel=1e-12)  # (sums in another order)
    with pytest.raises(ValueError, match="2 x 2"):
        plot.joint_convergence(shapley_game(), T=10)


@pytest.mark.slow
def test_the_general_sum_figures_are_written(tmp_path):
    pytest.importorskip("matplotlib")
    written = plot.write_general_sum_figures(tmp_path, T=300)
    assert {path.rsplit("/", 1)[-1] for path in written} == set(plot.GENERAL_SUM_FILES.values())
    for path in written:
        assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="2 actions"):
        plot.plot_player_dynamics(plot.game_dynamics(shapley_game(), 10))
