"""The result every margin recipe returns."""

from __future__ import annotations

import attrs
import numpy as np

from gamedyn.engine.recipe import Parameter, RecipeResult


@attrs.frozen(kw_only=True)
class MarginResult(RecipeResult):
    """A margin recipe's output in the original algorithm's terms, plus the game that produced it.

    ``w`` and ``p`` mean what the recipe's docstring says (a public contract); ``game`` is the
    runner's :class:`gamedyn.GameResult` with the regrets and Theorem 2's bound; ``steps`` the step
    sizes the recipe used (:class:`gamedyn.engine.recipe.RecipeResult`). ``row_scale`` is the factor
    max_i ||x_i|| the rows were divided by (``normalize=True``; 1.0 otherwise): the game, ``w`` and the
    certificate are on the rescaled rows A / row_scale. ``certificate`` is the certified bracket
    lower <= gamma* <= upper of :mod:`gamedyn.certify.certificates` (on A / row_scale); every margin
    recipe's output is proportional to the game's output sum, so ``lower`` is the normalised margin of ``w``.
    """

    w: np.ndarray
    p: np.ndarray
    row_scale: float = 1.0


def on_given_rows(result: MarginResult, rows, given) -> MarginResult:
    """``result`` with its certificate computed on the rows the user gave, divided by ``row_scale``.

    With ``normalize=True`` the game plays on ``rows = given / row_scale`` rounded in ``given``'s dtype:
    float32 rows are ``2^-24`` relative from the user's in every entry (issue 30: the certificates held
    for the rounded rows and were false for the user's by up to 9e-8 relative). The certificate is
    then recomputed in float64 on ``given / row_scale`` (the float32 entries read exactly):
    :func:`gamedyn.certify.certificates.on_float64_rows`. float64 rows (rounded to 2^-53, within the
    certificate's own rounding) and rows not rescaled are returned unchanged.
    """
    certificate = result.game.certificate
    dtype = getattr(rows, "dtype", None)
    if certificate is None or isinstance(certificate, (list, tuple)) or result.row_scale == 1.0 or dtype is None:
        return result
    if np.dtype(str(dtype).rsplit(".", 1)[-1]) == np.float64:  # numpy's dtype, or a torch / JAX dtype's name
        return result
    from gamedyn.certify.certificates import on_float64_rows
    from gamedyn.certify.dual import SignedRows
    from gamedyn.core.kernels import is_foreign, to_numpy

    given = to_numpy(given) if is_foreign(given) else given
    user = SignedRows(given, np.ones((given.shape[0], 1)), None, float(result.row_scale))
    moved = on_float64_rows(certificate, result.w, user)
    return attrs.evolve(result, game=attrs.evolve(result.game, certificate=moved))


NORMALIZE = Parameter(
    "normalize", "divide the rows by max_i ||x_i|| first (the theorems assume ||x_i|| <= 1; .row_scale says by "
    "how much); False refuses rows longer than 1", default=False, kind=bool, cli=False)
"""The parameter every margin recipe takes (the command line scales the rows itself)."""
