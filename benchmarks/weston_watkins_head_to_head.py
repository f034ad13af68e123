"""Weston-Watkins 2-norm soft margin (issue 29) against LinearSVC on the 7-class set: accuracy and CPU.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/weston_watkins_head_to_head.py

Measured 2026-12-06 (2 shared cores, one thread; time.process_time, median of 3 fits, 80/20 split):
MarginClassifier(multi_class="weston_watkins") 0.57 s, accuracy 0.6595, no warning, certified relative gap
0.0067 (200 iterations); LinearSVC(multi_class="crammer_singer") 41.1 s, 0.6855, ConvergenceWarning;
LinearSVC() (one-vs-rest) 0.39 s, 0.6840; MarginClassifier() (one-vs-rest) 0.06 s, 0.6830. The
Weston-Watkins accuracy is the model's, not the solver's: tol=1e-4 gives the same 0.6595 (0.91 s), C in
{1, 100, 1000} 0.658 to 0.664.
"""
import time, warnings, statistics
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC
from gamedyn.sklearn import MarginClassifier
X, y = make_classification(n_samples=10000, n_features=54, n_informative=30, n_redundant=10, n_classes=7,
                           n_clusters_per_class=1, flip_y=0.03, random_state=5)
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0)
def measure(make):
    times = []
    for _ in range(3):
        m = make(); t = time.process_time()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always"); m.fit(Xtr, ytr)
        times.append(time.process_time() - t)
    return statistics.median(times), m.score(Xte, yte), [str(x.message)[:80] for x in w], m
for name, make in [("MarginClassifier(multi_class='weston_watkins')", lambda: MarginClassifier(multi_class="weston_watkins")),
                   ("LinearSVC(multi_class='crammer_singer')", lambda: LinearSVC(multi_class="crammer_singer")),
                   ("LinearSVC() ovr", lambda: LinearSVC()),
                   ("MarginClassifier() ovr", lambda: MarginClassifier())]:
    t, acc, w, m = measure(make)
    extra = (m.certificate_[0].verdict(), m.n_iter_) if name.startswith("MarginClassifier(multi") else ""
    print(f"{name}: CPU {t:.3f} s median of 3, accuracy {acc:.4f}, warnings {w} {extra}", flush=True)
