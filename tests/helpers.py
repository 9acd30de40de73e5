"""The one home of the test helpers (plain functions and texts, imported by name); the
fixtures built on them live in the conftest.py of the folder whose tests use them.

- projects on disk: `write_project`, `write_file`, and handler texts several tests lint;
- the real command line: `run_ftlint` (a subprocess, as a user runs it), `ftlint_env`,
  `run_python` (a probe in a fresh interpreter), `git`; `run_in_process` (`ftlint.cli.main`);
- hand-built findings and rule docs for the reporters (`ft001`, `ft002`, `pr001`, `make_ctx`);
- the language-server client's helpers (`open_file`, `change_file`, `published_after`, ...).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ftlint.core.finding import Edit, Finding, RuleDoc, Severity
from ftlint.report import ReportContext

if TYPE_CHECKING:
    from lsprotocol import types
    from pytest_lsp import LanguageClient

ROOT = Path(__file__).resolve().parent.parent
#: The example handler file that ships in the wheel (`ftlint check` finds FT001-FT007 in it).
EXAMPLE = ROOT / "ftlint" / "examples" / "bad_fault_handler.py"

# --- handler texts several tests lint ------------------------------------------------------

#: A method that evicts the unconfirmed tail blocks of the given requests (what FT007 wants
#: before anything frees or resumes them); indented to sit in a class.
EVICT_TAILS = """\
    def _evict_unconfirmed_tails(self, requests):
        kv = self.engine.scheduler.kv_cache_manager
        for request in requests:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for group in kv.coordinator.single_type_managers:
                tail = group.req_to_blocks[request.request_id][confirmed // group.block_size :]
                kv.evict_blocks({block.block_id for block in tail if not block.is_null})
"""

#: A handler whose one finding is FT001 at line 6, column 13 (`drop_stale_output=True`).
SENTINEL_DROPS_FRAME = (
    """\
class EngineCoreSentinel:
    def on_fault(self, exc):
        running = list(self.engine.scheduler.running)
        self._evict_unconfirmed_tails(running)
        for request in running:
            self.engine.scheduler._preempt_request(request, 0.0, drop_stale_output=True)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

"""
    + EVICT_TAILS
)
#: The same handler fixed (no finding).
SENTINEL_FIXED = SENTINEL_DROPS_FRAME.replace(", drop_stale_output=True", "")

#: A handler that frees through `pkg.helpers.abort_all` (FT007 at line 6 with HELPER_FREES).
SENTINEL_CALLS_HELPER = """\
from pkg.helpers import abort_all


class EngineCoreSentinel:
    def on_fault(self, exc):
        abort_all(self.engine.scheduler, list(self.engine.scheduler.running))
"""

#: pkg/helpers.py: `abort_all` frees the requests without evicting their tails first.
HELPER_FREES = """\
from vllm.v1.request import RequestStatus


def abort_all(scheduler, requests):
    scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""


#: A preempt that drops stale output, then (next line) a discard assignment: two fixes on
#: neighbouring lines (issue 16 item 1).
NEIGHBOURS = (
    "class Sentinel:\n"
    "    def on_fault(self, exc):\n"
    "        for req in list(self.scheduler.running):\n"
    "            self._evict_tail(req)\n"
    "            self.scheduler._preempt_request(req, 0.0, drop_stale_output=True)\n"
    "            req.async_tokens_to_discard = req.num_output_placeholders\n"
    "\n"
    "    def _evict_tail(self, req):\n"
    "        self.kv.evict_blocks(set())\n"
)
NEIGHBOURS_FIXED = (
    "class Sentinel:\n"
    "    def on_fault(self, exc):\n"
    "        for req in list(self.scheduler.running):\n"
    "            self._evict_tail(req)\n"
    "            self.scheduler._preempt_request(req, 0.0)\n"
    "            req.num_in_flight_tokens = 0\n"
    "            req.num_stale_output_tokens = 0\n"
    "\n"
    "    def _evict_tail(self, req):\n"
    "        self.kv.evict_blocks(set())\n"
)


# --- projects on disk -------------------------------------------------------------------------


def write_file(root: Path, name: str, text: str) -> Path:
    """root/name holding `text` (dedented, leading newline dropped); parents made."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def write_project(root: Path, files: dict[str, str], config: str = "") -> Path:
    """A project: pyproject.toml with `[tool.ftlint]` + `config`, and `files` (name: text)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[tool.ftlint]\n" + textwrap.dedent(config))
    for name, text in files.items():
        write_file(root, name, text)
    return root


# --- the real command line --------------------------------------------------------------------

#: The command a user types, for callers that need more than `run_ftlint` (a pty, /dev/full).
FTLINT = (sys.executable, "-m", "ftlint")


def ftlint_env(env: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """This process's environment for an ftlint child: no cache, no colour or debug settings
    the tests did not ask for; `env` adds to it (a None value removes the variable)."""
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "FTLINT_DEBUG")}
    full["FTLINT_NO_CACHE"] = "1"
    for key, value in (env or {}).items():
        if value is None:
            full.pop(key, None)
        else:
            full[key] = value
    return full


def run_ftlint(
    *args: str,
    cwd: Path,
    env: Mapping[str, str | None] | None = None,
    input: str | bytes | None = None,
    binary: bool = False,
    timeout: float = 600,
    **popen: Any,
) -> subprocess.CompletedProcess:
    """`python -m ftlint ARGS` in `cwd`, as a user runs it: output captured, as text unless
    `binary` or `input` is bytes. `popen` goes to subprocess.run (stdout=, preexec_fn=)."""
    binary = binary or isinstance(input, bytes)
    if "stdout" not in popen:
        popen["capture_output"] = True
    else:
        popen.setdefault("stderr", subprocess.PIPE)
    return subprocess.run(
        [*FTLINT, *args], cwd=cwd, env=ftlint_env(env), input=input, text=not binary, timeout=timeout, **popen
    )


def check_stdin(
    text: str | bytes, *args: str, name: str | None = None, cwd: Path
) -> subprocess.CompletedProcess[bytes]:
    """`ftlint check - [--stdin-filename NAME] ARGS` with `text` piped in, as an editor pipes
    a buffer (output as bytes)."""
    data = text.encode() if isinstance(text, str) else text
    named = ("--stdin-filename", name) if name is not None else ()
    return run_ftlint("check", "-", *named, *args, input=data, cwd=cwd)


def run_python(code: str, cwd: Path, env: Mapping[str, str | None] | None = None, timeout: float = 120):
    """`python -c CODE` in a fresh interpreter (what a module-level import costs, exit paths)."""
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=ftlint_env(env), capture_output=True, text=True, timeout=timeout
    )


GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def git(*args: str, cwd: Path) -> str:
    """`git ARGS` in `cwd` with a committer identity; its stdout (a failure raises)."""
    env = {**os.environ, **GIT_IDENTITY}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def tracked_files(root: Path = ROOT) -> list[str]:
    """The files git tracks in the checkout at `root` (relative names)."""
    return [name for name in git("ls-files", "-z", cwd=root).split("\0") if name]


def copy_checkout(dest: Path) -> Path:
    """A copy of this checkout's tracked files (builds write beside the sources: not here)."""
    import shutil

    for name in tracked_files():
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def findings_json(*args: str, cwd: Path) -> tuple[int, list[dict]]:
    proc = run_ftlint("check", "--format", "json", *args, cwd=cwd)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout or "[]")


def codes_at(findings: list[dict]) -> list[tuple[str, int, str]]:
    return sorted((f["path"], f["line"], f["code"]) for f in findings)


FINDING_LINE = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>FT\d{3}) (?P<message>.*)$")


class CheckRun:
    """An in-process run of the CLI: exit code, stdout, stderr and the text findings."""

    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    @property
    def findings(self) -> list[tuple[str, int, int, str, str]]:
        found = []
        for line in self.out.splitlines():
            m = FINDING_LINE.match(line)
            if m:
                found.append((m["path"], int(m["line"]), int(m["col"]), m["code"], m["message"]))
        return found


def run_in_process(monkeypatch, capsys, cwd: Path, *args: str, command: str = "check") -> CheckRun:
    """`ftlint COMMAND [--no-cache] ARGS` in `cwd` through `ftlint.cli.main`, in this process."""
    from ftlint.cli import main

    monkeypatch.chdir(cwd)
    capsys.readouterr()
    extra = ["--no-cache"] if command == "check" else []
    code = main([command, *extra, *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    assert "Traceback" not in out, out
    return CheckRun(code, out, err)


def outlines_made_here(monkeypatch) -> list[str]:
    """The texts this process outlines from now on (outline.outline_ops calls); those a
    forked child outlines are not seen, which is what tests of the forked scan check."""
    import ftlint.index.outline as outline

    parent = os.getpid()
    made: list[str] = []
    real = outline.outline_ops

    def recording(text):
        if os.getpid() == parent:
            made.append(text)
        return real(text)

    monkeypatch.setattr(outline, "outline_ops", recording)
    return made


# --- hand-built findings and rule docs for the reporters (no engine needed) ----------------

#: Where the reporters' context puts the repository.
REPORT_ROOT = Path("/repo")

#: A line with multi-byte characters (2-, 3- and 4-byte UTF-8; the emoji is outside the BMP)
#: before the flagged expression.
NON_ASCII_LINE = '    x = "é中🙂"; y.drop_stale_output = True'


def make_docs() -> dict[str, RuleDoc]:
    return {
        "FT001": RuleDoc(
            code="FT001",
            name="stale-output-discard",
            summary="`drop_stale_output=True` discards outputs of a failed step",
            what_it_does="Checks for `drop_stale_output=True` on the fault path.",
            why_bad="A failed step leaves dirty KV blocks; discarding its output hides them.",
            example="y.drop_stale_output = True",
            use_instead="y.drop_stale_output = False",
            severity=Severity.ERROR,
            url="https://ftlint.example/rules/FT001",
            extra={"Known problems": "Aliases are not tracked."},
        ),
        "FT002": RuleDoc(
            code="FT002",
            name="evict-outside-lock",
            summary="evict_blocks() called without the pool lock",
            what_it_does="Finds evict_blocks() in except handlers outside `with pool.lock`.",
            why_bad="Concurrent eviction corrupts the free list.",
            example="evict_blocks(ids)",
            use_instead="with pool.lock:\n    evict_blocks(ids)",
            severity=Severity.WARNING,
            url="",
        ),
        "PR001": RuleDoc(
            code="PR001",
            name="fault-path-without-test",
            summary="The pull request changes a fault path without a test",
            what_it_does="Flags PRs that touch fault-path code but no tests.",
            why_bad="Fault paths are rarely exercised; untested changes regress silently.",
            example="",
            use_instead="",
            severity=Severity.WARNING,
        ),
    }


def ft001(
    path: str = "vllm/v1/worker.py",
    line: int = 12,
    line_text: str = NON_ASCII_LINE,
    **kw,
) -> Finding:
    col = line_text.index("y.drop") + 1
    true_col = line_text.index("True") + 1
    end_col = len(line_text) + 1
    defaults = {
        "path": path,
        "line": line,
        "column": col,
        "end_line": line,
        "end_column": end_col,
        "code": "FT001",
        "name": "stale-output-discard",
        "message": "`drop_stale_output=True` discards the output of a failed step",
        "severity": Severity.ERROR,
        "line_text": line_text,
        "end_line_text": line_text,
        "fix": (Edit(line, true_col, line, end_col, "False"),),
        "fix_title": "Set `drop_stale_output` to `False`",
    }
    defaults.update(kw)
    return Finding(**defaults)


def ft002(path: str = "vllm/v1/core/block_pool.py", line: int = 40, **kw) -> Finding:
    text = "        evict_blocks(ids)"
    defaults = {
        "path": path,
        "line": line,
        "column": 9,
        "end_line": line,
        "end_column": len(text) + 1,
        "code": "FT002",
        "name": "evict-outside-lock",
        "message": "evict_blocks() in except-handler without holding the block-pool lock",
        "severity": Severity.WARNING,
        "line_text": text,
        "end_line_text": text,
    }
    defaults.update(kw)
    return Finding(**defaults)


def pr001(**kw) -> Finding:
    defaults = {
        "path": "",
        "line": 0,
        "column": 0,
        "end_line": 0,
        "end_column": 0,
        "code": "PR001",
        "name": "fault-path-without-test",
        "message": "This pull request changes `vllm/v1/worker.py` (a fault path) but adds no test",
        "severity": Severity.WARNING,
    }
    defaults.update(kw)
    return Finding(**defaults)


def make_ctx(**kw) -> ReportContext:
    defaults = {"docs": make_docs(), "tool_version": "0.1.0", "root": REPORT_ROOT, "cwd": REPORT_ROOT}
    defaults.update(kw)
    return ReportContext(**defaults)


# --- the language-server client (pytest-lsp); lsprotocol is imported where it is used ------

PUBLISH_TIMEOUT = 60.0  # seconds: the first lint imports LibCST on a busy machine


class Published(dict):
    """client.diagnostics that also keeps every publish, in order (uri, diagnostics)."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, list]] = []

    def __setitem__(self, uri, diagnostics) -> None:
        super().__setitem__(uri, diagnostics)
        self.log.append((uri, list(diagnostics)))

    def count(self, uri: str) -> int:
        return sum(1 for u, _ in self.log if u == uri)


def open_file(client: LanguageClient, path: Path, version: int = 1) -> str:
    from lsprotocol import types

    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=uri, language_id="python", version=version, text=path.read_text(encoding="utf-8")
            )
        )
    )
    return uri


def change_file(client: LanguageClient, uri: str, text: str, version: int) -> None:
    """A whole-text change, as a client that syncs the full document sends it."""
    from lsprotocol import types

    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def published_after(client: LanguageClient, uri: str, seen: int) -> list[types.Diagnostic]:
    """The diagnostics of the first publish for `uri` after the `seen` ones before it."""
    published: Published = client.diagnostics  # type: ignore[assignment]

    async def wait() -> list[types.Diagnostic]:
        while published.count(uri) <= seen:
            await asyncio.sleep(0.01)
        return [d for u, d in published.log if u == uri][seen]

    return await asyncio.wait_for(wait(), PUBLISH_TIMEOUT)


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (UTF-16 positions) to `text`, as an editor does."""
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        before = sum(len(line) for line in lines[: position.line])
        if position.line >= len(lines):
            return len(text)
        line, units, index = lines[position.line], 0, 0
        while units < position.character and index < len(line):
            units += 2 if ord(line[index]) > 0xFFFF else 1
            index += 1
        return before + index

    spans = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text
