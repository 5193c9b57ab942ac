"""``prescient plan``: what a run of the evaluate stages would send, before it sends
anything.

For every model of ``eval.models`` it runs that model's ``evaluate`` stage as dvc.yaml
declares it (the command of its ``matrix``; every partition of the model in one
process, ``--plan-also``), with ``--plan``: the stage builds every request of the run
(:mod:`prescient.evaluation.plan`), asks the model's ledger and the response store which
it already answers, sends nothing and writes nothing else. The
table says per model the requests, those already answered, those repeated within the run
(paid once), those to send, and the worst-case cost of sending them against
``llm.max_cost_usd`` (the ceiling each model's stage keeps); a model in batch mode gets
a line with the jobs its requests are cut into and the rounds of its provider's batch
window that takes. ``-S key=value`` plans the run those overrides would make (a sweep
point, as ``dvc exp run -S`` takes them).

``--queued`` plans every experiment ``dvc queue status`` lists as Queued, before
``dvc queue start`` runs them: each with the params.yaml its stash commit holds (what
``dvc exp run --queue`` composed from its overrides; :mod:`prescient.plumbing.queued`),
the workspace's code and prompts, and the ledgers and response store as they are now.
One table per experiment, under its name and the params it changes with respect to the
workspace's params.yaml, with each model's verdict against that experiment's own
``llm.max_cost_usd`` (the ceiling holds per stage run, so per experiment and model);
then the sweep's totals per model: requests, answered and repeated summed over the
experiments, and the requests to send counted once however many experiments make them
(the response store pays a request once across the sweep, in whichever experiment asks
first; ``shared`` says how many of the experiments' own counts that saves), with their
worst-case cost. An experiment's own ``to send`` is what it sends when it runs first;
one that runs after another sends only what the earlier ones left. ``--json FILE``
writes the plans (each model's with the ledger key and worst-case cost of every request
it would send), the changes and the totals. Running or finished experiments are not
planned; an experiment queued with targets that stop before ``evaluate`` sends nothing,
which the plan does not see.

The prompts hold the retrieved articles, so a plan reads the workspace's retrieved
tables: every partition's context tables (``data/interim/partitions/<partition>/contexts/<setting>.parquet``) and
the evaluated questions, made by the stage dvc.yaml names as their producer
(``retrieve``) with the params that stage takes (``base.seed``, ``questions``,
``retrieval``) as dvc.lock records them. A run whose settings have no table yet, or
whose params for that stage differ from those dvc.lock records, is not planned: the plan
names it and the command that makes its tables in the workspace (``dvc repro retrieve``
for the workspace's params, ``dvc exp run retrieve -S ...`` with the overrides for a
sweep point, and for queued experiments one command per group of experiments sharing
the stage's params: those params where they differ from the workspace's, and the union
of their settings, the workspace's first where it shares them too, so that one
retrieval serves them all and keeps the workspace's own), and exits 1. Planning then
needs nothing else: ``dvc exp run retrieve`` changes the workspace's params.yaml and
dvc.lock, not the queued experiments, which keep what they were queued with.

Usage::

    python -m prescient plan                                   # the workspace's params
    python -m prescient plan -S 'eval.settings=[closed_book,rag_2024-06-01]'
    python -m prescient plan --queued --json plan.json         # every queued experiment
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from prescient.plumbing import params as params_mod
from prescient.plumbing import queued as queued_mod

logger = logging.getLogger(__name__)

STAGE = "evaluate"
STAGE_MODULE = f"stages.{STAGE}"
"""Run as a command, as DVC runs it (never imported: the plumbing imports no stage)."""
_INTERPOLATION = re.compile(r"\$\{([^}]+)\}")
PARTITION_OPTIONS = ("--questions", "--contexts", "--ledger")
"""What differs between a model's partitions, in the order of the stage's --plan-also."""
SETTINGS_KEY = "eval.settings"
"""The param naming the settings, each with its own context table."""


def _lookup(params: dict[str, Any], dotted: str) -> Any:
    value: Any = params
    for part in dotted.split("."):
        value = value[part]
    return value


def _get(params: dict[str, Any], dotted: str) -> Any:
    try:
        return _lookup(params, dotted)
    except (KeyError, TypeError):
        return queued_mod.REMOVED


def partitions(params: dict[str, Any]) -> list[str]:
    """The evaluation's partitions (``eval.partitions``; ``all`` when unset)."""
    return [str(x) for x in (params.get("eval") or {}).get("partitions") or ["all"]]


def partition_argvs(root: Path, params: dict[str, Any], model: str) -> list[list[str]]:
    """The arguments of ``python -m stages.evaluate`` for each of ``model``'s partitions
    (in ``eval.partitions`` order), as dvc.yaml's ``evaluate`` stage declares them (its
    ``${item.model}`` and ``${item.partition}``, other ``${...}`` read from the params);
    dvc.yaml is read once."""
    stage = yaml.safe_load((root / "dvc.yaml").read_text())["stages"][STAGE]
    template = " ".join(str(stage["cmd"]).split())
    head = ["python", "-m", STAGE_MODULE]
    out = []
    for partition in partitions(params):
        item = {"item.model": model, "item.partition": partition}

        def fill(m: re.Match[str], item: dict[str, str] = item) -> str:
            name = m.group(1)
            return item[name] if name in item else str(_lookup(params, name))

        words = shlex.split(_INTERPOLATION.sub(fill, template))
        if words[:3] != head:
            raise ValueError(f"dvc.yaml's {STAGE} stage does not run {' '.join(head)}: {template}")
        out.append(words[3:])
    return out


def _option(argv: Sequence[str], name: str) -> str:
    if name not in argv or argv.index(name) + 1 >= len(argv):
        raise ValueError(f"dvc.yaml's {STAGE} stage passes no {name}")
    return argv[argv.index(name) + 1]


@dataclass(frozen=True)
class Gap:
    """Why the workspace's retrieved tables are not those a run's evaluate stage reads.

    Attributes:
        stage: the stage that makes them (their producer in dvc.yaml).
        missing: settings without a context table (all of them: no evaluated questions).
        stale: that stage's params whose value differs from the one dvc.lock records.
        keys: that stage's params, as dvc.yaml declares them (settings aside).
    """

    stage: str
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.missing or self.stale)

    def describe(self, contexts: str) -> str:
        parts = []
        if self.missing:
            parts.append(f"no context table in {contexts} for {', '.join(self.missing)}")
        if self.stale:
            parts.append(
                f"the {self.stage} stage's params {', '.join(self.stale)} differ from those "
                "dvc.lock records for the workspace's tables"
            )
        return "; ".join(parts)


def _producer(root: Path, out: str) -> tuple[str, list[str]]:
    """The dvc.yaml stage with output ``out`` (or a directory holding it), and the params
    it declares."""
    stages = yaml.safe_load((root / "dvc.yaml").read_text()).get("stages") or {}
    for name, stage in stages.items():
        outs = [next(iter(o)) if isinstance(o, dict) else str(o) for o in stage.get("outs") or []]
        if any(Path(out) == Path(o) or Path(o) in Path(out).parents for o in outs):
            keys: list[str] = []
            for p in stage.get("params") or []:
                keys.extend(p.get(params_mod.PARAMS_FILE, []) if isinstance(p, dict) else [p])
            return str(name), [str(k) for k in keys]
    raise ValueError(f"no stage of dvc.yaml writes {out}, which the {STAGE} stage reads")


def retrieval_gap(root: Path, params: dict[str, Any], argv: Sequence[str]) -> Gap:
    """What keeps the workspace's retrieved tables from being the ones ``params`` would
    make (:class:`Gap`; empty when they are): every partition's questions and context
    tables (``argv``: the first partition's stage arguments)."""
    from prescient.evaluation.settings import parse_setting, setting_file

    stage, keys = _producer(root, _option(argv, "--contexts"))
    keys = [k for k in keys if k != SETTINGS_KEY]
    names = [parse_setting(s) for s in _lookup(params, SETTINGS_KEY)]
    model = str(next(iter(params["eval"]["models"] or []), ""))
    missing = []
    for part_argv in partition_argvs(root, params, model):
        contexts = _option(part_argv, "--contexts")
        if not (root / _option(part_argv, "--questions")).exists():
            missing += [s.name for s in names]
        else:
            missing += [s.name for s in names if not (root / contexts / setting_file(s)).exists()]
    missing = list(dict.fromkeys(missing))
    stale = []
    lock_file = root / "dvc.lock"
    if lock_file.exists() and len(missing) < len(names):
        locked = yaml.safe_load(lock_file.read_text()) or {}
        recorded = ((locked.get("stages") or {}).get(stage) or {}).get("params") or {}
        recorded = recorded.get(params_mod.PARAMS_FILE) or {}
        stale = [k for k in keys if k in recorded and _get(params, k) != recorded[k]]
    return Gap(stage, missing, stale, keys)


def _run_plans(
    root: Path, params: dict[str, Any], params_file: Path, models: list[str] | None, tmp: Path
) -> list[dict[str, Any]]:
    plans = []
    for model in models or list(params["eval"]["models"]):
        out = tmp / f"{model}.json"
        first, *others = partition_argvs(root, params, model)
        argv = [*first, "--params", str(params_file)]
        # every further partition's tables and ledger, planned in the same process
        for also in others:
            argv += ["--plan-also", *(_option(also, o) for o in PARTITION_OPTIONS)]
        # the stage in its own process, as dvc repro runs it
        command = [sys.executable, "-m", STAGE_MODULE, *argv, "--plan", str(out)]
        code = subprocess.run(command, cwd=root, check=False).returncode
        if code != 0 or not out.exists():
            raise SystemExit(f"planning {model} failed (exit {code}): see the log above")
        plans.append(json.loads(out.read_text()))
        out.unlink()
    return plans


def _first_argv(root: Path, params: dict[str, Any]) -> list[str]:
    # the tables' paths do not depend on the model (``${item.model}``)
    model = str(next(iter(params["eval"]["models"] or []), ""))
    return partition_argvs(root, params, model)[0]


def plan_models(
    root: Path, overrides: list[str], models: list[str] | None = None
) -> tuple[list[dict[str, Any]], float | None]:
    """Each model's plan (:class:`prescient.evaluation.plan.ModelPlan` as JSON) and the
    ceiling ``llm.max_cost_usd``.

    Raises:
        SystemExit: the workspace's retrieved tables are not the ones these params read
            (the message names the command that makes them), or a model's planning fails.
    """
    with tempfile.TemporaryDirectory(prefix="prescient-plan-") as tmp:
        if overrides:
            params = params_mod.compose(root, overrides)
            params_file = Path(tmp) / "params.yaml"
            params_file.write_text(yaml.safe_dump(params, sort_keys=False))
        else:
            params_file = root / params_mod.PARAMS_FILE
            params = yaml.safe_load(params_file.read_text())
        argv = _first_argv(root, params)
        gap = retrieval_gap(root, params, argv)
        if gap:
            sets = "".join(f" -S {shlex.quote(o)}" for o in overrides)
            command = f"dvc exp run {gap.stage}{sets}" if overrides else f"dvc repro {gap.stage}"
            raise SystemExit(
                f"not planned: {gap.describe(_option(argv, '--contexts'))}; the prompts hold "
                f"the retrieved articles: make them first with `{command}`"
            )
        plans = _run_plans(root, params, params_file, models, Path(tmp))
    return plans, params["llm"].get("max_cost_usd")


def _money(value: float | None, paid: int) -> str:
    if not paid:
        return "in process"
    return "unpriced" if value is None else f"${value:.4f}"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                      enumerate(zip(r, widths, strict=True))) for r in [head, *rows]]  # fmt: skip


def _verdict(p: dict[str, Any], ceiling: float | None) -> str | None:
    """The model's worst case against the ceiling: None in process, else a sentence."""
    if not p["paid"]:
        return None
    if ceiling is None:
        return f"{p['model']}: no ceiling (llm.max_cost_usd is null)"
    if p["max_cost_usd"] is None:
        return (
            f"{p['model']}: unpriced under llm.max_cost_usd={ceiling:g}: the stage "
            "refuses it before any call (give the entry a price)"
        )
    verdict = "within" if p["max_cost_usd"] <= ceiling else "may pass"
    return (
        f"{p['model']}: worst case ${p['max_cost_usd']:.4f} {verdict} "
        f"llm.max_cost_usd={ceiling:g} (the stage stops sending at the ceiling)"
    )


def _fits(p: dict[str, Any], ceiling: float | None) -> bool:
    """Whether the model's stage run stays within the ceiling (or needs none)."""
    if not p["paid"] or ceiling is None:
        return True
    return p["max_cost_usd"] is not None and p["max_cost_usd"] <= ceiling


def render(plans: list[dict[str, Any]], ceiling: float | None) -> str:
    """The plan as a table, one row per model, and the ceiling's verdict per model."""
    head = ("model", "requests", "answered", "repeated", "to send", "worst case")
    rows = [
        (
            p["model"],
            f"{p['requests']:,}",
            f"{p['answered']:,}",
            f"{p['repeated']:,}",
            f"{p['to_send']:,}",
            _money(p["max_cost_usd"], p["paid"]),
        )
        for p in plans
    ]
    lines = _table(head, rows)
    lines.extend(v for p in plans if (v := _verdict(p, ceiling)) is not None)
    lines.extend(j for p in plans if (j := _jobs(p)) is not None)
    return "\n".join(lines)


def _jobs(p: dict[str, Any]) -> str | None:
    """How a batch-mode model's requests go out (None: none goes in a batch)."""
    jobs, at_once = p.get("batch_jobs") or 0, p.get("batch_in_flight") or 1
    if not jobs:
        return None
    rounds = -(-jobs // at_once)
    return (
        f"{p['model']}: {p['batched']:,} requests in {jobs} batch job{'s' * (jobs > 1)}, "
        f"{min(jobs, at_once)} out at once: {rounds} round{'s' * (rounds > 1)} of the "
        "provider's batch window (llm.batch_max_requests, llm.batch_max_in_flight)"
    )


# ---------------------------------------------------------------- queued experiments


@dataclass
class ExperimentPlan:
    """One queued experiment's plan, or why there is none.

    Attributes:
        name: as ``dvc queue status`` shows it.
        rev: its stash commit.
        changes: the params it changes with respect to the workspace's params.yaml.
        ceiling: its ``llm.max_cost_usd``.
        plans: each model's plan (None: not planned).
        gap: why it is not planned (None: planned).
        command: the command that makes its retrieved tables (None: planned).
    """

    name: str
    rev: str
    changes: dict[str, Any]
    ceiling: float | None
    plans: list[dict[str, Any]] | None = None
    gap: str | None = None
    command: str | None = None

    def to_json(self) -> dict[str, Any]:
        removed = [k for k, v in self.changes.items() if v is queued_mod.REMOVED]
        return {
            "name": self.name,
            "rev": self.rev,
            "changes": {k: v for k, v in self.changes.items() if k not in removed},
            "removed": removed,
            "max_cost_usd": self.ceiling,
            "plans": self.plans,
            "not_planned": None if self.gap is None else self.gap,
            "command": self.command,
        }


def _retrieve_commands(
    root: Path, workspace: dict[str, Any], experiments: list[queued_mod.QueuedExperiment],
    gaps: list[Gap],
) -> list[str | None]:  # fmt: skip
    """Per experiment, the command making its tables in the workspace (None: it has
    them): experiments whose retrieval params agree share one, with all their settings."""
    groups: dict[str, list[str]] = {}

    def group(params: dict[str, Any], gap: Gap) -> str:
        values = {k: _get(params, k) for k in gap.keys}
        return json.dumps(values, sort_keys=True, default=repr)

    for exp, gap in zip(experiments, gaps, strict=True):
        if gap:
            settings = groups.setdefault(group(exp.params, gap), [])
            if not settings:
                try:
                    if group(workspace, gap) == group(exp.params, gap):
                        settings.extend(str(s) for s in _lookup(workspace, SETTINGS_KEY))
                except KeyError:
                    pass
            settings.extend(
                s for s in map(str, _lookup(exp.params, SETTINGS_KEY)) if s not in settings
            )
    commands: list[str | None] = []
    for exp, gap in zip(experiments, gaps, strict=True):
        if not gap:
            commands.append(None)
            continue
        changes = queued_mod.changed(workspace, exp.params)
        keys = [
            k
            for k in changes
            if any(k == p or k.startswith(f"{p}.") for p in gap.keys) and k != SETTINGS_KEY
        ]
        sets = [queued_mod.override(k, changes[k], workspace) for k in keys]
        settings = groups[group(exp.params, gap)]
        sets.append(queued_mod.override(SETTINGS_KEY, settings, workspace))
        commands.append(f"dvc exp run {gap.stage} " + " ".join(f"-S {s}" for s in sets))
    return commands


def plan_queued(root: Path, models: list[str] | None = None) -> list[ExperimentPlan]:
    """Every queued experiment's plan (module docstring), in ``dvc queue status``'s
    order; an experiment whose retrieved tables are not the workspace's is named with
    the command that makes them, and not planned."""
    experiments = queued_mod.queued_experiments(root)
    workspace = yaml.safe_load((root / params_mod.PARAMS_FILE).read_text())
    gaps = [retrieval_gap(root, e.params, _first_argv(root, e.params)) for e in experiments]
    commands = _retrieve_commands(root, workspace, experiments, gaps)
    out = []
    with tempfile.TemporaryDirectory(prefix="prescient-plan-") as tmp:
        for exp, gap, command in zip(experiments, gaps, commands, strict=True):
            plan = ExperimentPlan(
                exp.name,
                exp.rev,
                queued_mod.changed(workspace, exp.params),
                exp.params.get("llm", {}).get("max_cost_usd"),
            )
            if gap:
                contexts = _option(_first_argv(root, exp.params), "--contexts")
                plan.gap, plan.command = gap.describe(contexts), command
            else:
                params_file = Path(tmp) / "params.yaml"
                params_file.write_text(yaml.safe_dump(exp.params, sort_keys=False))
                logger.info("planning queued experiment %s (%s)", exp.name, exp.rev[:7])
                plan.plans = _run_plans(root, exp.params, params_file, models, Path(tmp))
            out.append(plan)
    return out


def sweep_totals(experiments: list[ExperimentPlan]) -> dict[str, Any]:
    """Per model, over the planned experiments: requests, answered and repeated summed;
    ``to_send`` the distinct requests to send (each once, as the response store pays
    it), ``shared`` what that saves on the experiments' own counts, ``max_cost_usd`` the
    distinct requests' worst case; and the stage runs against their ceilings."""
    per_model: dict[str, dict[str, Any]] = {}
    sends: dict[str, dict[str, float | None]] = {}
    runs = within = 0
    over: list[str] = []
    for exp in experiments:
        for p in exp.plans or []:
            t = per_model.setdefault(
                p["model"],
                {"model": p["model"], "experiments": 0, "requests": 0, "answered": 0,
                 "repeated": 0, "to_send_each": 0, "paid": False},
            )  # fmt: skip
            t["experiments"] += 1
            for k in ("requests", "answered", "repeated"):
                t[k] += p[k]
            t["to_send_each"] += p["to_send"]
            t["paid"] = t["paid"] or bool(p["paid"])
            sends.setdefault(p["model"], {}).update(p.get("sends") or {})
            runs += 1
            if _fits(p, exp.ceiling):
                within += 1
            else:
                over.append(f"{exp.name}/{p['model']}")
    models = []
    for model, t in per_model.items():
        costs = list(sends[model].values())
        t["to_send"] = len(costs)
        t["shared"] = t["to_send_each"] - t["to_send"]
        priced = t["paid"] and all(c is not None for c in costs)
        t["max_cost_usd"] = sum(c for c in costs if c is not None) if priced else None
        models.append(t)
    return {
        "experiments": len(experiments),
        "planned": sum(e.plans is not None for e in experiments),
        "models": models,
        "stage_runs": runs,
        "stage_runs_within_ceiling": within,
        "stage_runs_over_ceiling": over,
    }


def _describe_changes(changes: dict[str, Any], limit: int = 6) -> str:
    if not changes:
        return "the workspace's params"
    shown = [
        f"~{k}" if v is queued_mod.REMOVED else f"{k}={queued_mod.hydra_value(v)}"
        for k, v in list(changes.items())[:limit]
    ]
    more = len(changes) - limit
    return " ".join(shown) + (f" (and {more} more)" if more > 0 else "")


def render_queued(experiments: list[ExperimentPlan], totals: dict[str, Any]) -> str:
    """One table per experiment, then the sweep's totals (module docstring)."""
    lines: list[str] = []
    for exp in experiments:
        lines.append(f"experiment {exp.name} ({exp.rev[:7]}): {_describe_changes(exp.changes)}")
        if exp.plans is None:
            lines.append(f"  not planned: {exp.gap}; the prompts hold the retrieved articles:")
            lines.append(f"  make them in the workspace first with `{exp.command}`")
        else:
            lines.extend(f"  {line}" for line in render(exp.plans, exp.ceiling).splitlines())
        lines.append("")
    lines.append(
        f"sweep: {totals['experiments']} queued experiments, {totals['planned']} planned"
        " (to send: each distinct request once, as the response store pays it; shared: "
        "requests several experiments would send, paid once)"
    )
    head = ("model", "experiments", "requests", "answered", "repeated", "to send", "shared",
            "worst case")  # fmt: skip
    rows = [
        (
            t["model"],
            str(t["experiments"]),
            f"{t['requests']:,}",
            f"{t['answered']:,}",
            f"{t['repeated']:,}",
            f"{t['to_send']:,}",
            f"{t['shared']:,}",
            _money(t["max_cost_usd"], t["paid"]),
        )
        for t in totals["models"]
    ]
    if rows:
        lines.extend(f"  {line}" for line in _table(head, rows))
    if totals["stage_runs"]:
        verdict = (
            f"ceiling: llm.max_cost_usd holds per stage run (an experiment's evaluate "
            f"stage of one model): {totals['stage_runs_within_ceiling']} of "
            f"{totals['stage_runs']} within their experiment's ceiling"
        )
        if totals["stage_runs_over_ceiling"]:
            verdict += "; may pass it: " + ", ".join(totals["stage_runs_over_ceiling"])
        lines.append(verdict)
    return "\n".join(lines)


def _plan(args: argparse.Namespace) -> int:
    root = Path(args.root)
    if args.queued:
        if args.set:
            raise SystemExit("--queued plans the queued experiments' own params: drop -S")
        try:
            experiments = plan_queued(root, args.models)
        except ValueError as exc:
            raise SystemExit(str(exc)) from exc
        if not experiments:
            print(
                "no queued experiment (dvc queue status lists none as Queued): queue them "
                "with `dvc exp run --queue -S ...`",
                file=sys.stderr,
            )
            return 1
        totals = sweep_totals(experiments)
        print(render_queued(experiments, totals))
        if args.json:
            document = {"experiments": [e.to_json() for e in experiments], "totals": totals}
            Path(args.json).write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
        return 0 if totals["planned"] == totals["experiments"] else 1
    plans, ceiling = plan_models(root, list(args.set or []), args.models)
    print(render(plans, ceiling))
    if args.json:
        Path(args.json).write_text(json.dumps(plans, indent=2, sort_keys=True) + "\n")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "plan",
        help="what the evaluate stages would send, and its worst-case cost, before sending",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--root", default=".", help="the project root (default: .)")
    p.add_argument(
        "-S",
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="a params override, as dvc exp run -S",
    )
    p.add_argument(
        "--queued",
        action="store_true",
        help="plan every experiment dvc queue status lists as Queued, and the sweep's totals",
    )
    p.add_argument("--models", nargs="+", help="plan these models only (default: eval.models)")
    p.add_argument("--json", help="also write the plans to this JSON file")
    p.set_defaults(func=_plan)
