"""Tower health: is the battle tower fair, or has the board shifted? Computed from the drops in the log.

Owns the statistics only: per-zone landing counts per colour over time, the chi-square test of the
recent drops against the table's own long-run distribution (the drops before them), jams and
tower/camera disagreements, and the one-line warning the table view shows. Reads the game log; writes nothing.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from controller.gamelog import GameLog


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for a chi-square variable with `dof` degrees of freedom (regularized upper gamma)."""
    if dof <= 0:
        return 1.0
    if x <= 0:
        return 1.0
    a, z = dof / 2.0, x / 2.0
    if z < a + 1:  # series for the lower function
        term = total = 1.0 / a
        n = a
        for _ in range(1000):
            n += 1
            term *= z / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        lower = total * math.exp(-z + a * math.log(z) - math.lgamma(a))
        return max(0.0, 1.0 - lower)
    # continued fraction (Lentz) for the upper function
    tiny = 1e-300
    b = z + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-z + a * math.log(z) - math.lgamma(a)) * h)


@dataclass
class ChiSquare:
    statistic: float
    dof: int
    p_value: float
    recent: int  # drops in the recent window
    baseline: int  # drops before it


@dataclass
class TowerStats:
    table_id: str
    drops: int
    by_colour: dict[str, dict[str, int]]  # colour -> zone -> landings (all time)
    by_day: dict[str, dict[str, int]]  # YYYY-MM-DD -> zone -> landings
    jams: int
    disagreements: int
    test: ChiSquare | None
    warning: str | None
    alpha: float
    incidents: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "drops": self.drops,
            "by_colour": self.by_colour,
            "by_day": self.by_day,
            "jams": self.jams,
            "disagreements": self.disagreements,
            "alpha": self.alpha,
            "warning": self.warning,
            "chi_square": None if self.test is None else vars(self.test),
            "incidents": self.incidents,
        }


def chi_square(recent: Counter[str], baseline: Counter[str]) -> ChiSquare | None:
    """Recent zone counts vs the baseline's proportions (zones pooled until each expects >= 5)."""
    n_recent, n_base = sum(recent.values()), sum(baseline.values())
    if n_recent < 10 or n_base < 20:
        return None
    zones = sorted(set(recent) | set(baseline), key=lambda z: -baseline[z])
    bins: list[tuple[float, int]] = []  # (expected, observed)
    exp_acc = obs_acc = 0.0
    for z in zones:
        # A zone never seen in the baseline gets half a count so a new landing spot still registers.
        p = max(baseline[z], 0.5) / (n_base + 0.5 * sum(1 for x in zones if baseline[x] == 0))
        exp_acc += p * n_recent
        obs_acc += recent[z]
        if exp_acc >= 5:
            bins.append((exp_acc, int(obs_acc)))
            exp_acc = obs_acc = 0.0
    if exp_acc or obs_acc:
        if bins:
            e, o = bins.pop()
            bins.append((e + exp_acc, int(o + obs_acc)))
        else:
            bins.append((exp_acc, int(obs_acc)))
    if len(bins) < 2:
        return None
    stat = sum((o - e) ** 2 / e for e, o in bins)
    dof = len(bins) - 1
    return ChiSquare(round(stat, 3), dof, chi2_sf(stat, dof), n_recent, n_base)


def compute(
    log: GameLog, table_id: str, window: int = 200, alpha: float = 0.01, since: float | None = None
) -> TowerStats:
    import time

    drops = log.drops(table_id, since=since)
    by_colour: dict[str, Counter[str]] = {}
    by_day: dict[str, Counter[str]] = {}
    for ts, colour, zone in drops:
        by_colour.setdefault(colour, Counter())[zone] += 1
        by_day.setdefault(time.strftime("%Y-%m-%d", time.gmtime(ts)), Counter())[zone] += 1
    recent = Counter(z for _t, _c, z in drops[-window:])
    baseline = Counter(z for _t, _c, z in drops[:-window]) if len(drops) > window else Counter()
    test = chi_square(recent, baseline)
    incidents = log.incidents(table_id, since=since)
    jams = sum(1 for _t, k, _d in incidents if k == "jam")
    disagreements = sum(1 for _t, k, _d in incidents if k == "disagreement")
    warning = None
    if test is not None and test.p_value < alpha:
        warning = (
            f"The tower's last {test.recent} cubes landed unlike its usual pattern (chi-square p = "
            f"{test.p_value:.2g}): check that the battle board has not shifted and the tower is level."
        )
    recent_incidents = [i for i in incidents if i[0] >= (drops[-window][0] if len(drops) >= window else 0)]
    recent_jams = sum(1 for _t, k, _d in recent_incidents if k == "jam")
    if warning is None and recent_jams >= 3:
        warning = (
            f"The tower jammed {recent_jams} times recently: check it for a stuck cube or a loose baffle."
        )
    return TowerStats(
        table_id,
        len(drops),
        {c: dict(v) for c, v in by_colour.items()},
        {d: dict(v) for d, v in sorted(by_day.items())},
        jams,
        disagreements,
        test,
        warning,
        alpha,
        [{"ts": t, "kind": k, **d} for t, k, d in incidents[-20:]],
    )
