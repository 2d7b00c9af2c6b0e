"""The keep rule's verdict on a fast path, from paired, alternating runs.

    python3 scripts/bench/keep.py LOG WITH WITHOUT

LOG is what `scripts/bench-pwned.sh compare` appends (one run a line:
input mode name wall_s user_s sys_s peak_rss_kb ...), with the builds
WITH and WITHOUT the path run as A B B A cycles. Each WITHOUT run is
paired with the WITH run beside it in its cycle, so a drift in the
machine's load falls on both; per case (input and page-cache mode) and
measure (wall, CPU = user + system, peak RSS) it prints the median of
WITHOUT / WITH - 1 over the pairs (positive: worse without the path) and
a 95% bootstrap interval of that median.

The rule: the path stays if, in some case and measure, the median is at
least +5% and the interval lies above zero; otherwise the simpler code
(WITHOUT) wins. Standard library only.
"""

import collections
import random
import statistics
import sys

RESAMPLES = 10_000
THRESHOLD = 0.05


def pairs(runs, with_, without):
    """(with, without) runs taken side by side in log order."""
    out, waiting = [], {with_: [], without: []}
    for name, run in runs:
        other = without if name == with_ else with_
        if waiting[other]:
            first = waiting[other].pop(0)
            out.append((first, run) if name == without else (run, first))
        else:
            waiting[name].append(run)
    return out


def interval(changes, rng):
    medians = sorted(
        statistics.median(rng.choices(changes, k=len(changes)))
        for _ in range(RESAMPLES)
    )
    return medians[int(0.025 * RESAMPLES)], medians[int(0.975 * RESAMPLES) - 1]


def main(log, with_, without):
    cases = collections.defaultdict(list)
    for line in open(log):
        f = line.split()
        if len(f) < 7 or f[2] not in (with_, without):
            continue
        wall, cpu, rss = float(f[3]), float(f[4]) + float(f[5]), float(f[6])
        cases[(f[0], f[1])].append((f[2], (wall, cpu, rss)))
    rng = random.Random(1)
    keep = False
    print(f"{without} against {with_}: median change without the path [95% interval], pairs")
    for (data, mode), runs in cases.items():
        matched = pairs(runs, with_, without)
        if len(matched) < 3:
            print(f"{data} {mode}: {len(matched)} pairs, too few")
            continue
        cells = []
        for i, measure in enumerate(("wall", "CPU", "peak RSS")):
            changes = [b[i] / a[i] - 1 for a, b in matched]
            median = statistics.median(changes)
            lo, hi = interval(changes, rng)
            pays = median >= THRESHOLD and lo > 0
            keep |= pays
            cells.append(
                f"{measure} {median:+.1%} [{lo:+.1%}, {hi:+.1%}]" + (" PAYS" if pays else "")
            )
        print(f"{data} {mode}: " + "; ".join(cells) + f"; {len(matched)} pairs")
    print("verdict: " + ("keep" if keep else "delete (the simpler code wins)"))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
