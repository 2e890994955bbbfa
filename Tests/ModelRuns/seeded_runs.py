"""What the model-based tests share (Tests/SaveModel/save_model.py, Tests/CalDAV/tasks_model.py):
runs of generated steps, one per seed; a failing run shrunk to the fewest steps that still fail;
the kept cases (REGRESSIONS/*.json: a seed and its steps) replayed before the seeds.

A script gives its own options and `run_seed(seed, steps, only, trace, generator)`, which returns
(what failed or None, the run); a run has `done_steps`, `step` (the last one begun) and
`directory` (kept when the run failed, to look at)."""

import json
import os
import random
import shutil
import sys
import time


def add_arguments(parser, seeds, steps, regressions):
    parser.add_argument("--seeds", default=seeds)
    parser.add_argument("--fresh-seeds", type=int, default=0, help="this many random seeds instead")
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--regressions", default=regressions)
    parser.add_argument("--trace", action="store_true")
    parser.add_argument("--no-shrink", action="store_true")


def shrink(run_seed, seed, failing_step, generator):
    """The fewest steps (up to the failing one) that still fail: halves, then quarters… left out
    in turn, each trial replayed on fresh servers."""
    kept = list(range(failing_step + 1))
    chunk = max(1, len(kept) // 2)
    while chunk >= 1:
        index = 0
        while index < len(kept):
            trial = kept[:index] + kept[index + chunk:]
            if trial:
                found, run = run_seed(seed, max(trial) + 1, set(trial), False, generator)
                shutil.rmtree(run.directory, ignore_errors=True)
                if found:
                    kept = trial
                    continue
            index += chunk
        chunk //= 2
    return kept


def run_cases(options, run_seed, counted, generator=None):
    """Every kept case, then every seed; prints a line each and the totals, and exits 1 if any
    failed. `counted` names what a run counts besides its steps (an attribute: "saves").
    `generator`: the generator's version, when the script has one (a kept case without one is 1)."""
    cases = []
    for path in sorted(os.listdir(options.regressions)) if os.path.isdir(options.regressions) else []:
        with open(os.path.join(options.regressions, path)) as f:
            case = json.load(f)
        version = case.get("generator", 1) if generator is not None else None
        cases.append((path, case["seed"], max(case["steps"]) + 1, set(case["steps"]), version))
    seeds = ([random.randrange(1 << 32) for _ in range(options.fresh_seeds)] if options.fresh_seeds
             else [int(s) for s in options.seeds.split(",") if s])
    cases += [("seed %d" % seed, seed, options.steps, None, generator) for seed in seeds]
    label = counted.replace("_", " ")
    failures, total_steps, total_counted = 0, 0, 0
    started = time.time()
    for name, seed, steps, only, version in cases:
        found, run = run_seed(seed, steps, only, options.trace, version)
        total_steps += run.done_steps
        total_counted += getattr(run, counted)
        if not found:
            print("%s: %d steps, %d %s, held" % (name, run.done_steps, getattr(run, counted), label), flush=True)
            continue
        failures += 1
        print("%s: FAILED at %s" % (name, found), flush=True)
        if only is None and not options.no_shrink:
            kept = shrink(run_seed, seed, run.step, version)
            case = {"seed": seed, "steps": kept}
            if version is not None:
                case["generator"] = version
            print("  shrunk to steps %s; keep it as %s/seed-%d.json:" % (kept, options.regressions, seed))
            print("  " + json.dumps(case))
            replayed, _ = run_seed(seed, max(kept) + 1, set(kept), True, version)
            print("  the shrunk run: %s" % (replayed or "held (the failure needs the steps left out)"))
    print("%d runs, %d steps, %d %s, %d failed, %.0f s" % (
        len(cases), total_steps, total_counted, label, failures, time.time() - started))
    sys.exit(1 if failures else 0)
