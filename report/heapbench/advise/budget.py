"""budget.py - how advise spends --budget seconds: the shares of the stages and the size of the confirmation.

Always holds: the plan is made from measured times only (the baseline's runs, then each
screen invocation as it ends), so it adapts to the program and the machine's load; the
confirmation's reps are at least what heapbench.stats' test needs to reach alpha / POWER_MARGIN
after Holm's correction over its K candidates (stats_needed_reps); whatever the plan leaves out is named
in the dropped list that the advice prints.
"""
from heapbench import stats

RUNNER_OVERHEAD = 0.6   # s per runner invocation besides its runs (start, probe, metadata), measured ~0.3-0.6 s
VERIFY_COST = 0.3       # s per setting verified (tune's verify_point runs a small program)
BASELINE_REPS = 3
SCREEN_REPS = 3
SCREEN_SHARE = 0.35     # of what is left after the baseline and the profile
RESERVE = 0.05          # of the budget, kept for the recommendation and the output files
MAX_K = 6
CONFIRM_WARMUP = 1      # the confirmation's warm-up round (the runner's --warmup 1): one more run per cell
SLACK = 1.15            # runs of several allocators under a loaded machine take longer than the baseline's median
# The confirmation's reps can reach alpha / POWER_MARGIN after Holm, not just alpha: with the bare
# minimum (5 + 5 for K <= 3) one overlapping pair of runs is enough to lose a real difference.
POWER_MARGIN = 2
MAX_REPS = 10   # beyond this the confirmation stops growing: the budget is a cap, not a target


def budget_record_cost(run_s):
    """Expected seconds of the profile stage: one plain run, one recorded run (~1.5x), reading the trace."""
    return 2.5 * run_s + 2 * RUNNER_OVERHEAD


def budget_too_small(budget, run_s):
    """The smallest budget that fits the baseline, the profile, a screen and the smallest confirmation
    of a program whose run takes run_s seconds."""
    needed = (BASELINE_REPS * run_s + RUNNER_OVERHEAD + budget_record_cost(run_s)
              + 4 * SCREEN_REPS * run_s + RUNNER_OVERHEAD + 2 * stats.stats_needed_reps(0.05) * run_s + RUNNER_OVERHEAD)
    return needed / (1 - RESERVE) if budget < needed / (1 - RESERVE) else 0.0


def budget_screen_share(budget, elapsed):
    """Seconds the screen stage may use."""
    return max(0.0, (budget * (1 - RESERVE) - elapsed) * SCREEN_SHARE)


def budget_confirm_plan(budget, elapsed, run_s, cells_of, alpha, available):
    """(K, reps, cost) of the largest confirmation that fits what is left, or None when not even one candidate fits.

    cells_of(k): the number of matrix cells the confirmation of the best k candidates runs (the
    runner's allocator x env product); available: how many candidates there are.
    """
    left = budget * (1 - RESERVE) - elapsed - RUNNER_OVERHEAD
    for k in range(min(MAX_K, available), 0, -1):
        reps = stats.stats_needed_reps(alpha / POWER_MARGIN, k)
        per_rep = cells_of(k) * run_s * SLACK
        if (reps + CONFIRM_WARMUP) * per_rep <= left:
            reps = max(reps, min(MAX_REPS, int(left // per_rep) - CONFIRM_WARMUP))
            return k, reps, (reps + CONFIRM_WARMUP) * per_rep + RUNNER_OVERHEAD
    return None
