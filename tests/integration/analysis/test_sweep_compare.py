"""The README's sweep over RAG cutoffs, compared as the README says: one experiment per
cutoff queued under its own name, each model's Brier score at each cutoff in `dvc exp
show` within a 100-character terminal (the cutoff beside it, even where every model
scores the same), one model's summary, `dvc metrics diff` of two experiments and `dvc
plots diff` overlaying them in one chart per declared plot. On a scratch project (git + DVC with Hydra composition) whose
one stage runs the real analysis on hand-made scores of the settings in `eval.settings`
and writes the real metrics files, so `dvc exp show` meets the same column names as in
the pipeline."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.queue import run_queue

BIN = Path(sys.executable).parent
DVC = BIN / "dvc"
WIDTH = 100

STAGE = """\
import datetime as dt
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import yaml

from prescient.evaluation.settings import parse_setting
from tests.fixtures.analysis.frames import score_rows, scores_frame
from tests.fixtures.analysis.settings import SEED, analysis_settings, run_analysis

grid = yaml.safe_load(open("params.yaml"))["eval"]
rows = []
for model in grid["models"]:
    for name in grid["settings"]:
        s = parse_setting(name)
        # a later cutoff answers more of the 12 questions right
        k = {"closed_book": 3, "gold": 9}.get(name, 5)
        if s.rag_cutoff is not None:
            k = 2 + (s.rag_cutoff - dt.date(2023, 9, 1)).days // 90
        if model.startswith("baseline"):
            k = 6  # a baseline reads no article: the same at every cutoff
        rows += score_rows(model, s.kind, s.cutoff_label, "2024-07-15", "tf", "c" * k + "w" * (12 - k))
for row in rows:  # a wrong answer is "No": the second option
    row["parsed_answer"] = 0 if row["correct"] else 1
result = run_analysis(scores_frame(rows), None, None, {}, analysis_settings(), SEED)
os.makedirs("reports/metrics", exist_ok=True)
for name in ("metrics", "summary", "rag"):  # as the stage writes them: keys sorted
    out = "analysis" if name == "metrics" else name
    json.dump(getattr(result, name), open(f"reports/metrics/{out}.json", "w"), sort_keys=True)
os.makedirs("reports/plots", exist_ok=True)
for name, frame in result.plots.items():
    frame.to_csv(f"reports/plots/{name}.csv", index=False)
os.makedirs("reports/figures", exist_ok=True)
fig, ax = plt.subplots(figsize=(2, 2))
ax.bar(range(len(rows)), [float(r["correct"]) for r in rows])
fig.savefig("reports/figures/accuracy.png")
"""

DVC_YAML = """\
stages:
  analyze:
    cmd: python analyze.py
    deps: [analyze.py]
    params: [eval]
    metrics:
      - reports/metrics/analysis.json:
          cache: false
      - reports/metrics/summary.json:
          cache: false
      - reports/metrics/rag.json:
          cache: false
    plots:
      - reports/figures
      - reports/plots/brier_tf.csv:
          cache: false
          template: bar_horizontal
          x: brier_tf
          y: forecaster
"""

CONFIG = """\
eval:
  models: [smollm2_135m, baseline_random, baseline_always_yes]
  settings: [closed_book, gold, rag_dynamic, rag_2024-06-01]
"""


def sh(root: Path, *args: str, **env: str) -> str:
    path = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    full = {**os.environ, "PATH": path, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg", **env}
    out = subprocess.run(args, cwd=root, env=full, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"{args}: {out.stdout}{out.stderr}"
    return out.stdout


def sweep_section() -> str:
    text = (ROOT / "README.md").read_text()
    return text.split("\n## Sweeps\n", 1)[1].split("\n## ", 1)[0]


def readme_loop() -> str:
    """The README's loop queueing one named experiment per cutoff."""
    block = re.search(r"^for cutoff in .*?^done$", sweep_section(), re.M | re.S)
    assert block, "the Sweeps section has no `for cutoff in ... done` loop"
    return block.group(0)


def readme_commands(prefix: str) -> list[list[str]]:
    """The README's command lines starting with ``prefix`` (comments left out)."""
    lines = [line for line in sweep_section().splitlines() if line.startswith(prefix)]
    assert lines, f"the Sweeps section has no line starting {prefix!r}"
    return [shlex.split(line, comments=True) for line in lines]


def readme_command(prefix: str) -> list[str]:
    """The README's one command line starting with ``prefix`` (its comment left out)."""
    (command,) = readme_commands(prefix)
    return command


@pytest.mark.slow
def test_the_readme_sweep_compares_in_100_columns(tmp_path: Path) -> None:
    if not DVC.exists() or shutil.which("git") is None or shutil.which("bash") is None:
        pytest.skip("dvc, git or bash is not installed")
    root = tmp_path / "proj"
    (root / "conf").mkdir(parents=True)
    (root / "conf" / "config.yaml").write_text(CONFIG)
    (root / "params.yaml").write_text(CONFIG)
    (root / "analyze.py").write_text(STAGE)
    (root / "dvc.yaml").write_text(DVC_YAML)
    sh(root, "git", "init", "-q", "-b", "main")
    sh(root, "git", "config", "user.email", "test@example.org")
    sh(root, "git", "config", "user.name", "test")
    sh(root, str(DVC), "init", "-q")
    sh(root, str(DVC), "config", "core.analytics", "false")
    sh(root, str(DVC), "config", "hydra.enabled", "true")
    sh(root, str(DVC), "repro", "-q")
    sh(root, "git", "add", "-A")
    sh(root, "git", "commit", "-qm", "baseline")

    out = sh(root, "bash", "-c", readme_loop())
    names = ["rag_2023-12-01", "rag_2024-03-01", "rag_2024-06-01"]
    assert [f"Queued experiment '{n}'" in out for n in names] == [True] * 3, out
    status = run_queue(sh, root, 3, 240)
    assert status.count("Success") == 3, status

    brier, summary = readme_commands("dvc exp show")
    natural = sh(root, *brier, "--no-pager", COLUMNS="1000")
    lines = [line.rstrip() for line in natural.splitlines() if line.strip()]
    assert max(len(line) for line in lines) <= WIDTH, natural
    # in a 100-column terminal nothing is squeezed: the same table
    assert sh(root, *brier, "--no-pager", COLUMNS=str(WIDTH)) == natural
    # every model's column stays, though the baselines score the same everywhere
    assert lines[1].split() == [
        "Experiment",
        "baseline_always_yes",
        "baseline_random",
        "cutoff",
        "smollm2_135m",
    ]
    rows = {line.split("[")[1].split("]")[0]: line.split()[-4:] for line in lines if "[" in line}
    # TF Brier of one-word answers: the share answered wrong, 12 - (2 + days // 90) of 12
    assert rows == {
        "rag_2023-12-01": ["0.5", "0.5", "2023-12-01", "0.75"],
        "rag_2024-03-01": ["0.5", "0.5", "2024-03-01", "0.66667"],
        "rag_2024-06-01": ["0.5", "0.5", "2024-06-01", "0.58333"],
    }

    one = sh(root, *summary, "--no-pager", COLUMNS="1000")
    lines = [line.rstrip() for line in one.splitlines() if line.strip()]
    assert max(len(line) for line in lines) <= WIDTH, one
    assert lines[1].split() == [
        "Experiment",
        "smollm2_135m.brier_tf.rag",
        "smollm2_135m.n",
        "smollm2_135m.rag",
    ]
    rows = {line.split("[")[1].split("]")[0]: line.split()[-3:] for line in lines if "[" in line}
    assert rows["rag_2023-12-01"] == ["0.75", "12", "25"], one
    assert rows["rag_2024-06-01"] == ["0.58333", "12", "41.667"], one

    diff = sh(root, *readme_command("dvc metrics diff"))
    assert re.search(r"smollm2_135m\.closed_book\s+25\.0\s+25\.0\s+0\.0", diff), diff
    assert re.search(r"smollm2_135m\.rag\s+25\.0\s+41\.66667\s+16\.66667", diff), diff
    assert re.search(r"smollm2_135m\.rag_cutoff\s+2023-12-01\s+2024-06-01", diff), diff

    sh(root, *readme_command("dvc plots diff"))
    assert (root / "dvc_plots" / "index.html").exists()
    # one image per experiment named on the command line
    images = sorted(p.name for p in (root / "dvc_plots" / "static").iterdir())
    assert [name.split("_reports_")[0] for name in images] == names[::2], images
    # the declared data plot is one chart holding both experiments' bars (its rev field)
    page = (root / "dvc_plots" / "index.html").read_text()
    spec = re.search(r"reports/plots/brier_tf\.csv.*", page, re.S)
    assert spec, "no data plot of the TF Brier scores in dvc_plots/index.html"
    for name in names[::2]:
        assert re.search(rf'"rev": "{name}"[^}}]*"forecaster": "smollm2_135m rag"', page) or (
            re.search(rf'"forecaster": "smollm2_135m rag"[^}}]*"rev": "{name}"', page)
        ), name
