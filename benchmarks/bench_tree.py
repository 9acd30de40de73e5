#!/usr/bin/env python3
"""Time `ftlint check` on a source tree against ruff, side by side (issue 5's targets).

    python benchmarks/bench_tree.py /path/to/vllm-0.34.0 [--rounds 5]

Fetches nothing: give it a tree (an unpacked vLLM sdist, a checkout, or the installed
package's parent directory). Runs, alternately in each round:

  ruff     `ruff check --isolated --select E9,F --no-cache .`  (when ruff is installed)
  cold     `ftlint check --no-cache`                           (whole tree)
  warm     `ftlint check --cache-dir TMP`                      (cache primed, nothing changed)
  file     `ftlint check --no-cache FILE` / file-warm with the cache   (pre-commit's call)
  file-edited  the same with the cache, FILE edited just before    (pre-commit after an edit)
  libcst   `python -c "import libcst"`                         (the single-file yardstick)

  batches      every tracked .py/.pyi file passed explicitly, in pre-commit's own partitions
               (pre_commit.xargs.partition, one at a time as with `require_serial: true`),
               `ftlint check --no-cache`, one process per partition; ruff-batches: ruff the same way
  batches-2000 the same files in batches of 2,000 (ruff-batches-2000: ruff the same way)
  no-fault-path  one `ftlint check --no-cache` over the first 2,000-file batch less the files
               the prefilter passes (a process whose files hold no fault path), beside
  floor        `python -c` walking the tree and prefiltering every file with ftlint's own
               scan (what any process that scans the project pays: its floor)
  pre-commit   `pre-commit run --all-files` with a local hook running this venv's ftlint
               (`check --force-exclude`, a fresh cache dir each round: cold), against
               pre-commit-ruff, a local hook running the installed ruff (`check --force-exclude
               --isolated --select E9,F`, a fresh cache dir each round); both `language: system`,
               `require_serial: true` (as ruff-pre-commit's hook), so nothing is fetched
               (needs a git tree whose files are committed or staged)

then `ftlint check --no-cache --exhaustive` (--exhaustive-rounds times), and prints the
medians, the ratios against the targets, files parsed vs walked, peak RSS of each
command (ru_maxrss of that child, via os.wait4), and whether cold, warm and exhaustive
found the same findings. All commands run from the tree root. `file-edited` appends a
comment line to FILE before each run and restores the file's bytes right after (and on
exit), so the tree is left as it was found.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_FILE = "vllm/v1/fault_tolerance/engine_core_sentinel.py"

# `ftlint check`'s warm path through the engine API, without the CLI's rule registry
# (which imports every rule module, hence LibCST): what a warm CLI run costs once the
# registry stops importing rules to list codes. Codes are read from the rule sources.
ENGINE_WARM = """
import json, os, re, sys
from importlib.util import find_spec
from pathlib import Path
from ftlint.core.config import load_config, select_codes
from ftlint.lint.engine import lint_paths
rules = find_spec("ftlint.rules").submodule_search_locations[0]
known = ["FT000"] + sorted(
    m.group(1) for f in os.listdir(rules) if f.endswith(".py")
    for m in [re.search(r'^    CODE = "(FT\\d+)"', open(os.path.join(rules, f)).read(), re.M)] if m
)
config = load_config(Path.cwd())
selected = select_codes(config, [], known)
result = lint_paths([Path(p) for p in sys.argv[2:]], config, selected, cache_dir=Path(sys.argv[1]))
print(json.dumps([f.to_dict() for f in result.findings]))
print(f"ftlint: {result.files_linted} files linted, {result.files_parsed} parsed", file=sys.stderr)
assert result.cache_hit and "libcst" not in sys.modules, "not a warm run"
"""


# The floor of a process that scans the project: interpreter, ftlint's engine imports, the
# walk, every file read and prefiltered (lint.scan.scan_serial, no cache); nothing linted.
FLOOR = """
import os, sys
from pathlib import Path
from ftlint.core.config import load_config
from ftlint.index.discovery import discover, project_root_to_walk
from ftlint.lint.result_store import ResultStore
from ftlint.lint.scan import ScanFiles, scan_serial
cwd = os.getcwd()
config = load_config(Path(cwd))
found = discover([Path(cwd)], config, force_exclude=False, cwd=Path(cwd), listings=None)
lint = list(found.absolute)
files = ScanFiles(config, lint, {cwd}, project_root_to_walk(lint, config, [cwd]))
store = ResultStore(None, config.handler_patterns(), config.fault_steps)
scanned, candidates = scan_serial(files, store.facts, None)
if len(sys.argv) > 1:  # the candidates, for the bench's no-fault-path case
    print("\\n".join(os.path.relpath(c, cwd) for c in candidates))
print(f"ftlint: {len(scanned)} files linted, 0 parsed", file=sys.stderr)
sys.stdout.flush()
os._exit(0)
"""

BATCH = 2000

COMPILE_FTLINT = """
import compileall, os, ftlint
from importlib.util import find_spec
for spec in (find_spec("ftlint"), find_spec("ftlint.rules")):
    for location in spec.submodule_search_locations:
        compileall.compile_dir(location, quiet=1)
"""


def run_reaped(cmd: list[str], cwd: Path, env: dict) -> dict:
    """Wall time, peak RSS (MiB, this child's own ru_maxrss via os.wait4), exit code and output."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        pid = proc.pid
        _, status, usage = os.wait4(pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return {
            "wall": wall,
            "rss_mb": usage.ru_maxrss / 1024,
            "code": proc.returncode,
            "out": out.read().decode(errors="replace"),
            "err": err.read().decode(errors="replace"),
        }


def parsed_walked(stderr: str) -> tuple[int, int]:
    """(parsed, linted) from --statistics, summed over the runs of a batched case."""
    parsed = linted = -1
    for line in stderr.splitlines():
        if line.startswith("ftlint: ") and " files linted, " in line:
            words = line.split()
            parsed, linted = max(parsed, 0) + int(words[4]), max(linted, 0) + int(words[1])
    return parsed, linted


def findings(result: dict) -> list:
    try:
        data = json.loads(result["out"] or "[]")
    except ValueError:
        return [f"unparsable output: {result['out'][:200]!r} {result['err'][-500:]!r}"]
    return sorted((f["path"], f["line"], f["column"], f["code"], f["message"]) for f in data)


def run_batches(cmds: list[list[str]], cwd: Path, env: dict) -> dict:
    """Several commands one after the other (pre-commit's partitions): total wall time,
    the largest peak RSS, the worst exit code, the outputs' findings joined."""
    runs = [run_reaped(cmd, cwd, env) for cmd in cmds]
    joined = []
    for r in runs:
        joined.extend(json.loads(r["out"] or "[]") if r["out"].lstrip().startswith("[") else [])
    return {
        "wall": sum(r["wall"] for r in runs),
        "rss_mb": max(r["rss_mb"] for r in runs),
        "code": max(r["code"] for r in runs),
        "out": json.dumps(joined),
        "err": "".join(r["err"] for r in runs),
        "batches": len(runs),
    }


def tracked_python_files(tree: Path) -> list[str]:
    """What pre-commit passes with --all-files (git ls-files), Python files only."""
    proc = subprocess.run(["git", "ls-files", "-z", "--", "*.py", "*.pyi"], cwd=tree, capture_output=True, check=False)
    return [name for name in proc.stdout.decode().split("\0") if name] if proc.returncode == 0 else []


def pre_commit_batches(prefix: list[str], files: list[str]) -> list[list[str]]:
    """pre-commit's own split of `files` after `prefix` (its xargs, `require_serial: true`)."""
    from pre_commit.xargs import partition

    return [list(part) for part in partition(tuple(prefix), files, 1)]


PRE_COMMIT_CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: {id}
        name: {id}
        entry: {entry}
        language: system
        types_or: [python, pyi]
        require_serial: true
"""


def median(results: list[dict], key: str = "wall") -> float:
    return statistics.median(r[key] for r in results)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path, help="tree root (commands run from here)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--exhaustive-rounds", type=int, default=1, help="0 skips the exhaustive run")
    parser.add_argument("--file", default=DEFAULT_FILE, help="the single file (relative to the tree)")
    parser.add_argument("--python", default=sys.executable, help="the Python that has ftlint installed")
    parser.add_argument("--ruff", default=None, help="ruff executable (default: next to --python, then PATH)")
    parser.add_argument(
        "--no-pre-commit",
        dest="pre_commit",
        action="store_false",
        help="skip the batch and `pre-commit run --all-files` cases",
    )
    return parser


@dataclass
class _Bench:
    """The cases of one benchmark run and the temporary directories they use."""

    args: argparse.Namespace
    tree: Path
    py: str
    ruff: str | None
    env: dict[str, str]
    ftlint: list[str]
    single: bool
    target: Path
    original: bytes
    cache_dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="ftlint-bench-cache-")))
    edited_cache: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="ftlint-bench-edited-")))
    work: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="ftlint-bench-pre-commit-")))
    cases: dict[str, list[str]] = field(default_factory=dict)
    tracked: list[str] = field(default_factory=list)
    batch_cases: dict[str, list[list[str]]] = field(default_factory=dict)
    fresh_dirs: dict[str, list[Path]] = field(default_factory=dict)  # emptied before each run of that case (cold)


def _single_cases(bench: _Bench) -> None:
    ftlint, py, cache_dir = bench.ftlint, bench.py, bench.cache_dir
    cases = {
        "cold": [*ftlint, "--no-cache"],
        "warm": [*ftlint, "--cache-dir", str(cache_dir)],
        "libcst": [py, "-c", "import libcst"],
    }
    cases["warm-engine"] = [py, "-c", ENGINE_WARM, str(cache_dir)]
    cases["floor"] = [py, "-c", FLOOR]
    if bench.single:
        file = bench.args.file
        cases["file"] = [*ftlint, "--no-cache", file]
        cases["file-warm"] = [*ftlint, "--cache-dir", str(cache_dir), file]
        cases["file-engine"] = [py, "-c", ENGINE_WARM, str(cache_dir), file]
        cases["file-edited"] = [*ftlint, "--cache-dir", str(bench.edited_cache), file]
    if bench.ruff:
        cases = {"ruff": [bench.ruff, "check", "--isolated", "--select", "E9,F", "--no-cache", "."], **cases}
    bench.cases = cases


def _pre_commit_cases(bench: _Bench) -> None:
    """pre-commit's way: every tracked file passed explicitly, in its partitions."""
    args, ruff, py, work, cases = bench.args, bench.ruff, bench.py, bench.work, bench.cases
    try:
        import pre_commit
    except ImportError:
        args.pre_commit = False
    bench.tracked = tracked = tracked_python_files(bench.tree) if args.pre_commit else []
    if tracked:
        bench.batch_cases["batches"] = pre_commit_batches([*bench.ftlint, "--no-cache"], tracked)
        chunks = [tracked[i : i + BATCH] for i in range(0, len(tracked), BATCH)]
        bench.batch_cases["batches-2000"] = [[*bench.ftlint, "--no-cache", *chunk] for chunk in chunks]
        if ruff:
            ruff_batch = [ruff, "check", "--isolated", "--select", "E9,F", "--no-cache", "--output-format", "json"]
            bench.batch_cases["ruff-batches"] = pre_commit_batches(ruff_batch, tracked)
            bench.batch_cases["ruff-batches-2000"] = [[*ruff_batch, *chunk] for chunk in chunks]
        listed = subprocess.run([py, "-c", FLOOR, "list"], cwd=bench.tree, capture_output=True, text=True, check=True)
        candidates = set(listed.stdout.split())
        cases["no-fault-path"] = [*bench.ftlint, "--no-cache", *(f for f in chunks[0] if f not in candidates)]
        pre_commit = shutil.which("pre-commit", path=str(Path(py).parent)) or shutil.which("pre-commit")
        if pre_commit:
            ftlint_exe = shutil.which("ftlint", path=str(Path(py).parent)) or "ftlint"
            hooks = {"pre-commit": f"{ftlint_exe} check --force-exclude --cache-dir {work / 'ftlint-cache'}"}
            if ruff:
                hooks["pre-commit-ruff"] = (
                    f"{ruff} check --force-exclude --isolated --select E9,F --cache-dir {work / 'ruff-cache'}"
                )
            for name, entry in hooks.items():
                config = work / f"{name}.yaml"
                config.write_text(PRE_COMMIT_CONFIG.format(id=name, entry=entry))
                cases[name] = [pre_commit, "run", "--all-files", "--config", str(config)]
                bench.fresh_dirs[name] = [work / "ftlint-cache", work / "ruff-cache"]
    bench.env = {**bench.env, "PRE_COMMIT_HOME": str(work / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    for name in bench.batch_cases:
        cases[name] = bench.batch_cases[name][0]  # keeps the order; run_batches runs them all


def _run_once(bench: _Bench, name: str, i: int) -> dict:
    if name == "file-edited":
        bench.target.write_bytes(bench.original + f"# edited by bench_tree.py, round {i}\n".encode())
    for fresh in bench.fresh_dirs.get(name, ()):
        shutil.rmtree(fresh, ignore_errors=True)
    try:
        if name in bench.batch_cases:
            return run_batches(bench.batch_cases[name], bench.tree, bench.env)
        return run_reaped(bench.cases[name], bench.tree, bench.env)
    finally:
        if name == "file-edited":
            bench.target.write_bytes(bench.original)


def _run_rounds(bench: _Bench) -> tuple[dict[str, list[dict]], list[dict]]:
    """Every case, `--rounds` times (alternating the order), then the exhaustive runs."""
    cases, tree, env = bench.cases, bench.tree, bench.env
    # byte-compile ftlint as `pip install` does (PYTHONDONTWRITEBYTECODE would otherwise make
    # every run compile ftlint's modules again)
    subprocess.run([bench.py, "-c", COMPILE_FTLINT], check=False, capture_output=True)
    try:
        # fill the caches once (pre-commit: its own store, PRE_COMMIT_HOME, is made on first use)
        for prime in (
            "warm",
            "file-warm",
            "warm-engine",
            "file-engine",
            "file-edited",
            "pre-commit",
            "pre-commit-ruff",
        ):
            if prime in cases:
                run_reaped(cases[prime], tree, env)
        results: dict[str, list[dict]] = {name: [] for name in cases}
        for i in range(bench.args.rounds):
            order = list(cases) if i % 2 == 0 else list(reversed(cases))  # alternate the order too
            for name in order:
                results[name].append(_run_once(bench, name, i))
        exhaustive = [
            run_reaped([*bench.ftlint, "--no-cache", "--exhaustive"], tree, env)
            for _ in range(bench.args.exhaustive_rounds)
        ]
    finally:
        if bench.single and bench.target.read_bytes() != bench.original:
            bench.target.write_bytes(bench.original)
        shutil.rmtree(bench.cache_dir, ignore_errors=True)
        shutil.rmtree(bench.edited_cache, ignore_errors=True)
        shutil.rmtree(bench.work, ignore_errors=True)
    return results, exhaustive


def _print_table(bench: _Bench, rows: dict[str, list[dict]], walked: int) -> None:
    print(f"tree: {bench.tree}  ({walked} .py files under it)  rounds: {bench.args.rounds}  cpus: {os.cpu_count()}")
    print(f"python: {bench.py}\nruff: {bench.ruff or 'not installed'}")
    if bench.batch_cases:
        sizes = ", ".join(f"{name}: {len(cmds)} partitions" for name, cmds in bench.batch_cases.items())
        print(f"tracked Python files: {len(bench.tracked)}  ({sizes}, run one after the other)")
    elif bench.args.pre_commit:
        print("no tracked Python files (not a git tree, or nothing added): batch and pre-commit cases skipped")
    print()
    print(f"{'case':12} {'median s':>9} {'min s':>7} {'max s':>7} {'peak RSS MiB':>13} {'parsed':>7} {'linted':>7}")
    for name, rs in rows.items():
        parsed, linted = parsed_walked(rs[-1]["err"])
        print(
            f"{name:12} {median(rs):9.3f} {min(r['wall'] for r in rs):7.3f} {max(r['wall'] for r in rs):7.3f} "
            f"{max(r['rss_mb'] for r in rs):13.1f} {parsed if parsed >= 0 else '':>7} {linted if linted >= 0 else '':>7}"
        )


def _check(label: str, value: float, limit: float, aim: float | None = None) -> bool:
    passed = value <= limit
    extra = f" (aim <= {aim:.2f})" if aim is not None else ""
    print(f"  {label:44} {value:6.2f}  target <= {limit:.2f}{extra}  {'PASS' if passed else 'FAIL'}")
    return passed


def _targets(bench: _Bench, results: dict[str, list[dict]]) -> bool:
    print("\ntargets:")
    ok = True
    if bench.ruff:
        r = median(results["ruff"])
        ok &= _check("cold / ruff", median(results["cold"]) / r, 1.5, 1.0)
        ok &= _check("warm / ruff", median(results["warm"]) / r, 0.5)
        ok &= _check("warm-engine / ruff (no registry import)", median(results["warm-engine"]) / r, 0.5)
        if "batches" in results and "ruff-batches" in results:
            ok &= _check(
                "batches / ruff-batches (explicit, cold)",
                median(results["batches"]) / median(results["ruff-batches"]),
                0.75,
            )
        if "batches-2000" in results and "ruff-batches-2000" in results:
            ok &= _check(
                "batches-2000 / ruff-batches-2000",
                median(results["batches-2000"]) / median(results["ruff-batches-2000"]),
                0.75,
            )
    if "no-fault-path" in results:
        floor = median(results["floor"])
        ok &= _check(f"no-fault-path, s (floor: walk+prefilter {floor:.3f} s)", median(results["no-fault-path"]), 0.15)
        if "pre-commit" in results and "pre-commit-ruff" in results:
            ok &= _check(
                "pre-commit / pre-commit-ruff (--all-files, cold)",
                median(results["pre-commit"]) / median(results["pre-commit-ruff"]),
                1.5,
            )
    lib = median(results["libcst"])
    if bench.single:
        ok &= _check("file (cold) / import libcst", median(results["file"]) / lib, 1.5)
        ok &= _check("file-warm / import libcst", median(results["file-warm"]) / lib, 1.5)
        ok &= _check("file-engine / import libcst (no registry)", median(results["file-engine"]) / lib, 1.5)
        ok &= _check("file-edited / import libcst", median(results["file-edited"]) / lib, 1.5)
    ok &= _check("peak RSS whole tree, MiB (cold)", max(r["rss_mb"] for r in results["cold"]), 300)
    return ok


#: cases whose output is not compared with the cold run's (other tools, or the single file)
_NOT_COMPARED = (
    "ruff",
    "ruff-batches",
    "ruff-batches-2000",
    "floor",
    "no-fault-path",
    "pre-commit",
    "pre-commit-ruff",
    "libcst",
    "file",
    "file-warm",
    "file-engine",
    "file-edited",
)


def _same_findings(bench: _Bench, results: dict[str, list[dict]], rows: dict[str, list[dict]]) -> bool:
    print("\nsame findings:")
    ok = True
    base = findings(results["cold"][-1])
    for name, rs in rows.items():
        if name in _NOT_COMPARED:
            continue
        same = all(findings(r) == base for r in rs)
        ok &= same
        print(f"  {name:10} {'==' if same else '!='} cold   ({len(findings(rs[-1]))} findings)")
    if bench.single:
        for name in ("file-warm", "file-engine", "file-edited"):
            same = findings(results["file"][-1]) == findings(results[name][-1])
            ok &= same
            print(f"  {name:10} {'==' if same else '!='} file   ({len(findings(results['file'][-1]))} findings)")
    for name, rs in rows.items():
        bad = [r for r in rs if "Traceback" in r["err"] or ("ruff" not in name and r["code"] not in (0, 1))]
        if bad:
            ok = False
            print(f"  {name}: exit {bad[0]['code']}: {bad[0]['err'][-800:]}")
    return ok


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    if not tree.is_dir():
        parser.error(f"{tree}: not a directory")
    py = args.python
    target = tree / args.file
    single = target.is_file()
    bench = _Bench(
        args,
        tree,
        py,
        args.ruff or shutil.which("ruff", path=str(Path(py).parent)) or shutil.which("ruff"),
        {k: v for k, v in os.environ.items() if k != "FTLINT_NO_CACHE"},
        [py, "-m", "ftlint", "check", "--format", "json", "--scan-stats"],
        single,
        target,
        target.read_bytes() if single else b"",
    )
    walked = sum(1 for _ in tree.rglob("*.py"))
    _single_cases(bench)
    _pre_commit_cases(bench)
    results, exhaustive = _run_rounds(bench)
    rows = dict(results)
    if exhaustive:
        rows["exhaustive"] = exhaustive
    _print_table(bench, rows, walked)
    ok = _targets(bench, results)
    ok &= _same_findings(bench, results, rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
