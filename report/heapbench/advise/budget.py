"""budget.py - how advise spends --budget seconds: the plan of every stage, made before the stage runs, and the smallest budget that answers.

Always holds: each stage's cost is estimated before it runs, from what is known then (the
baseline's run time, the profile's event count with the replay's CPU per event, then each
screen invocation's measured cost); the confirmation on the program (the baseline and the best
candidates, with the reps Holm's correction over them needs at the first look's alpha:
stats_needed_reps at that alpha / POWER_MARGIN) is reserved first and the screen gets only what is left, so that a screen can
never eat the program's test; an invocation whose estimate does not fit what is left is not
started (it is named in the dropped list that the advice prints); budget_smallest is the budget
that fits the probe, the baseline, the profile, one screen round at the allocators' defaults and the
confirmation of one candidate, computed from the same costs, with the reserve (5% of the budget,
at least RESERVE_S: the recommendation's own cost); it grows with the run's length, so budget_floor (a run of no length: the runner's own costs) refuses a budget before any
run and budget_longest_run bounds the one probe run that sizes the rest.
"""
import math

from heapbench import stats
from heapbench.advise import recommend

RUNNER_OVERHEAD = 0.6   # s per runner invocation besides its runs (start, probe, metadata), measured ~0.3-0.6 s
VERIFY_COST = 0.3       # s per setting verified (tune's verify_point runs a small program)
BASELINE_REPS = 3
PROBE_REPS = 1          # the one run before the baseline that tells whether the budget can answer at all
PROBE_SHARE = 0.1       # the probe is stopped at this share of the budget (or at twice the longest run the budget
                        # can answer with, when longer): a refused budget costs little, and names a useful lower bound
SCREEN_REPS = 3         # replays per screened candidate
PROGRAM_SCREEN_REPS = 3  # runs of the program per screened candidate (a screen by the program itself)
SCREEN_SHARE = 0.5      # the screen's largest share of what is left after the baseline and the profile
RESERVE = 0.05          # of the budget, kept for the recommendation and the output files
RESERVE_S = 1.0         # the reserve's floor in the budget's unit: at a budget of 5-8 CPU s (load ~16) the
                        # confirmation ended 0.3-0.8 s past its plan and the recommendation took 0.3-0.4 s more,
                        # 5% of it (0.25-0.4 s) left runs 9-14% over their budget
MAX_K = 4               # candidates confirmed at most: fewer, with more reps each, decide more often on a loaded machine
RESERVE_K = 2           # the confirmation reserved before the screen: this many candidates (fewer if fewer exist)
CONFIRM_WARMUP = 1      # the confirmation's warm-up round (the runner's --warmup 1): one more run per cell
SLACK = 1.15            # runs of several allocators under a loaded machine take longer than the baseline's median
# The confirmation's reps can reach alpha / POWER_MARGIN after Holm, not just alpha: with the bare
# minimum (5 + 5 for K <= 3) one overlapping pair of runs is enough to lose a real difference.
POWER_MARGIN = 2
MAX_REPS = 20   # beyond this the confirmation stops growing: the budget is a cap, not a target
MAX_REPS_GROWN = 40  # the cap of a confirmation run again (--resume --budget N) after an undecided answer
# The replay's cost per malloc-API event of the trace, before one was measured: 1.05 M events of a
# 4-thread trace replayed in 0.25-0.32 CPU s on this 2-core machine (docs/measurements/advise.md), doubled.
REPLAY_S_PER_EVENT = 0.5e-6
REPLAY_FIXED_S = 0.15   # s per replay besides its events (the replayer's start, the trace's mapping)


def budget_record_cost(run_s):
    """Expected seconds of the profile stage: one plain run, one recorded run (~1.5x), reading the trace."""
    return 2.5 * run_s + 2 * RUNNER_OVERHEAD


def budget_replay_cost(ops, per_event=REPLAY_S_PER_EVENT):
    """Expected seconds of one replay of a trace of ops malloc-API events."""
    return REPLAY_FIXED_S + ops * per_event


def budget_screen_cost(runs, unit_s, verified=0):
    """Seconds of one screen invocation of runs runs of unit_s each, after verifying `verified` settings."""
    return runs * unit_s * SLACK + RUNNER_OVERHEAD + verified * VERIFY_COST


def budget_confirm_cost(reps, cells, run_s):
    """Seconds of a confirmation of cells matrix cells with reps reps each (and the warm-up round)."""
    return (reps + CONFIRM_WARMUP) * cells * run_s * SLACK + RUNNER_OVERHEAD


def budget_confirm_min(run_s, alpha, k=1):
    """Seconds of the smallest confirmation of k candidates at their defaults (k + 1 cells): the reps Holm
    needs over k at the first look's alpha (recommend.recommend_look_alpha)."""
    return budget_confirm_cost(budget_first_reps(alpha, k), k + 1, run_s)


def budget_first_reps(alpha, k=1):
    """The reps per side the first round (look 1) needs for Holm over k candidates at its alpha."""
    return stats.stats_needed_reps(recommend.recommend_look_alpha(alpha, 1) / POWER_MARGIN, k)


def budget_need(run_s, screen_unit_s, allocators, alpha, spent=None):
    """What an answer on this program costs before the reserve: the baseline and the profile (or what
    they took: spent), one screen round of the allocators at their defaults (screen_unit_s a run) and
    the confirmation of one candidate; linear in the run's length."""
    before = spent if spent is not None else ((PROBE_REPS + BASELINE_REPS) * run_s + 2 * RUNNER_OVERHEAD
                                              + budget_record_cost(run_s))
    screen = budget_screen_cost(allocators * PROGRAM_SCREEN_REPS, screen_unit_s) if allocators > 1 else 0.0
    return before + screen + budget_confirm_min(run_s, alpha)


def budget_smallest(run_s, screen_unit_s, allocators, alpha, spent=None):
    """The smallest budget that gives an answer on this program: budget_need with the reserve."""
    return budget_with_reserve(budget_need(run_s, screen_unit_s, allocators, alpha, spent))


def budget_whole(need):
    """A budget to suggest for need, in whole units, rounded up: giving it is enough (4.6 gives 5, never 5 for 5.02)."""
    return math.ceil(need - 1e-9)


def budget_reserve(budget):
    """What a budget keeps for the recommendation and the output files: RESERVE of it, at least RESERVE_S."""
    return max(RESERVE * budget, RESERVE_S)


def budget_with_reserve(need):
    """The smallest budget that leaves need after its reserve (budget_reserve)."""
    return max(need / (1 - RESERVE), need + RESERVE_S)


def budget_too_small(budget, run_s, allocators=2, alpha=0.05):
    """budget_smallest() of a program whose run takes run_s when budget is below it, else 0."""
    need = budget_smallest(run_s, run_s, allocators, alpha)
    return need if budget < need else 0.0


def budget_floor(allocators, alpha):
    """The smallest budget that could answer on any program: budget_smallest of a run of no length
    (the runner's start per invocation, the reserve); below it, advise measures nothing."""
    return budget_smallest(0.0, 0.0, allocators, alpha)


def budget_longest_run(budget, allocators, alpha):
    """The longest run (in the budget's unit) with which budget can still answer: budget_need is
    linear in the run's length, so this solves budget_smallest(run) == budget (0 below the floor)."""
    fixed = budget_need(0.0, 0.0, allocators, alpha)
    slope = budget_need(1.0, 1.0, allocators, alpha) - fixed
    return max(0.0, (budget - budget_reserve(budget) - fixed) / slope)


def budget_probe_limit(budget, allocators, alpha):
    """The longest the probe run may take: PROBE_SHARE of the budget, or twice budget_longest_run when longer."""
    return max(PROBE_SHARE * budget, 2 * budget_longest_run(budget, allocators, alpha))


def budget_screen_end(budget, elapsed, run_s, alpha, allocators):
    """The clock reading at which the screen must stop: what is left less the confirmation's reserve
    (RESERVE_K candidates at the reps Holm needs), at most SCREEN_SHARE of what is left."""
    left = budget - budget_reserve(budget) - elapsed
    k = max(1, min(RESERVE_K, allocators - 1))
    reserve = budget_confirm_min(run_s, alpha, k)
    return elapsed + max(0.0, min(left - reserve, left * SCREEN_SHARE))


def budget_confirm_plan(budget, elapsed, run_s, cells_of, alpha, available, max_reps=MAX_REPS, family_before=0):
    """(K, reps, cost) of the largest confirmation that fits what is left, or None when not even one candidate fits.

    cells_of(k): the number of matrix cells the confirmation of the best k candidates runs (the
    runner's allocator x env product); available: how many candidates there are; family_before:
    the candidates confirmed in earlier rounds (Holm corrects over them all: the reps needed grow).
    """
    left = budget - budget_reserve(budget) - elapsed - RUNNER_OVERHEAD
    for k in range(min(MAX_K, available), 0, -1):
        reps = stats.stats_needed_reps(alpha / POWER_MARGIN, family_before + k)
        per_rep = cells_of(k) * run_s * SLACK
        if (reps + CONFIRM_WARMUP) * per_rep <= left:
            reps = max(reps, min(max_reps, int(left // per_rep) - CONFIRM_WARMUP))
            return k, reps, (reps + CONFIRM_WARMUP) * per_rep + RUNNER_OVERHEAD
    return None


def budget_to_decide(spent, run_s, cells, alpha, k, reps=MAX_REPS):
    """The total budget that would confirm k candidates (cells matrix cells) at reps reps (at least what
    Holm needs), after what was spent: the budget an undecided answer names."""
    reps = max(reps, budget_first_reps(alpha, max(1, k)))
    return budget_with_reserve(spent + budget_confirm_cost(reps, cells, run_s))
