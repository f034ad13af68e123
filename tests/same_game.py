"""Shared by the tests of rounds that must report what the plain round does (one-pass, distributed)."""

import numpy as np

TOLERANCE = 1e-12


def relative_error(value, reference):
    return float(np.max(np.abs(np.asarray(value) - reference)) / np.max(np.abs(reference)))


def assert_same_game(game, reference, tolerance=TOLERANCE):
    """Every number a GameResult reports agrees to ``tolerance`` relative (exact for the counts)."""
    for field in ("w_average", "p_average", "w_sum", "p_sum", "w_last", "p_last"):
        assert relative_error(getattr(game, field), getattr(reference, field)) <= tolerance, field
    for field in ("w_loss_sum", "p_loss_sum"):
        assert relative_error(getattr(game, field).linear, getattr(reference, field).linear) <= tolerance, field
        assert getattr(game, field).curvature == getattr(reference, field).curvature, field
    for field in ("w_regret", "p_regret", "theorem2_bound", "duality_gap", "w_played_loss", "p_played_loss"):
        value, expected = getattr(game, field), getattr(reference, field)
        if expected is None or np.isinf(expected):
            assert value == expected, field
        else:  # regrets are differences of sums of size ~ the played losses: relative to those
            scale = max(abs(reference.w_played_loss), abs(reference.p_played_loss), abs(expected))
            assert abs(value - expected) <= tolerance * scale, field
    assert (game.rounds, game.stopped_early, game.stop_reason) == (reference.rounds, reference.stopped_early,
                                                                   reference.stop_reason)
    assert (game.weight_total, game.p_weight_total, game.output_weight_total) == (
        reference.weight_total, reference.p_weight_total, reference.output_weight_total)
