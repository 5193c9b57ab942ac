"""``prescient plan``: what a run of the evaluate stages would send, before it sends
anything.

For every model of ``eval.models`` it runs that model's ``evaluate`` stage as dvc.yaml
declares it (the command of its ``foreach``), with ``--plan``: the stage builds every
request of the run (:mod:`prescient.evaluation.plan`), asks the model's ledger and the
response store which it already answers, sends nothing and writes nothing else. The
table says per model the requests, those already answered, those repeated within the run
(paid once), those to send, and the worst-case cost of sending them against
``llm.max_cost_usd`` (the ceiling each model's stage keeps). ``-S key=value`` plans the
run those overrides would make (a sweep point, as ``dvc exp run -S`` takes them): its
settings' contexts must exist already (``dvc repro retrieve`` with the same overrides),
since the prompts hold the retrieved articles; a setting without them is named, and
the plan stops there.
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
from pathlib import Path
from typing import Any

import yaml

from prescient.plumbing import params as params_mod

logger = logging.getLogger(__name__)

STAGE = "evaluate"
STAGE_MODULE = f"stages.{STAGE}"
"""Run as a command, as DVC runs it (never imported: the plumbing imports no stage)."""
_INTERPOLATION = re.compile(r"\$\{([^}]+)\}")


def _lookup(params: dict[str, Any], dotted: str) -> Any:
    value: Any = params
    for part in dotted.split("."):
        value = value[part]
    return value


def stage_argv(root: Path, params: dict[str, Any], model: str) -> list[str]:
    """The arguments of ``python -m stages.evaluate`` for ``model``, as dvc.yaml's
    ``evaluate`` stage declares them (its ``${item}`` the model, other ``${...}`` read
    from the params)."""
    stage = yaml.safe_load((root / "dvc.yaml").read_text())["stages"][STAGE]
    template = " ".join(str(stage["do"]["cmd"]).split())

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        return model if name == "item" else str(_lookup(params, name))

    words = shlex.split(_INTERPOLATION.sub(fill, template))
    head = ["python", "-m", STAGE_MODULE]
    if words[:3] != head:
        raise ValueError(f"dvc.yaml's {STAGE} stage does not run {' '.join(head)}: {template}")
    return words[3:]


def plan_models(
    root: Path, overrides: list[str], models: list[str] | None = None
) -> tuple[list[dict[str, Any]], float | None]:
    """Each model's plan (:class:`prescient.evaluation.plan.ModelPlan` as JSON) and the
    ceiling ``llm.max_cost_usd``."""
    with tempfile.TemporaryDirectory(prefix="prescient-plan-") as tmp:
        if overrides:
            params = params_mod.compose(root, overrides)
            params_file = Path(tmp) / "params.yaml"
            params_file.write_text(yaml.safe_dump(params, sort_keys=False))
        else:
            params_file = root / params_mod.PARAMS_FILE
            params = yaml.safe_load(params_file.read_text())
        plans = []
        for model in models or list(params["eval"]["models"]):
            out = Path(tmp) / f"{model}.json"
            argv = [*stage_argv(root, params, model), "--params", str(params_file)]
            # the stage in its own process, as dvc repro runs it
            command = [sys.executable, "-m", STAGE_MODULE, *argv, "--plan", str(out)]
            code = subprocess.run(command, cwd=root, check=False).returncode
            if code != 0 or not out.exists():
                raise SystemExit(f"planning {model} failed (exit {code}): see the log above")
            plans.append(json.loads(out.read_text()))
    return plans, params["llm"].get("max_cost_usd")


def _money(value: float | None, paid: int) -> str:
    if not paid:
        return "in process"
    return "unpriced" if value is None else f"${value:.4f}"


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
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                       enumerate(zip(r, widths, strict=True))) for r in [head, *rows]]  # fmt: skip
    for p in plans:
        if not p["paid"]:
            continue
        if ceiling is None:
            lines.append(f"{p['model']}: no ceiling (llm.max_cost_usd is null)")
        elif p["max_cost_usd"] is None:
            lines.append(
                f"{p['model']}: unpriced under llm.max_cost_usd={ceiling:g}: the stage "
                "refuses it before any call (give the entry a price)"
            )
        else:
            verdict = "within" if p["max_cost_usd"] <= ceiling else "may pass"
            lines.append(
                f"{p['model']}: worst case ${p['max_cost_usd']:.4f} {verdict} "
                f"llm.max_cost_usd={ceiling:g} (the stage stops sending at the ceiling)"
            )
    return "\n".join(lines)


def _plan(args: argparse.Namespace) -> int:
    root = Path(args.root)
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
    p.add_argument("--models", nargs="+", help="plan these models only (default: eval.models)")
    p.add_argument("--json", help="also write the plans to this JSON file")
    p.set_defaults(func=_plan)
