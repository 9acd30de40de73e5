"""ftlint.core.config: finding, reading and validating [tool.ftlint]; selecting codes; path matching."""

from __future__ import annotations

import builtins
import os
import re
import textwrap
from pathlib import Path

import pytest

from ftlint.core.config import (
    DEFAULT_EXCLUDES,
    Config,
    ConfigError,
    load_config,
    select_codes,
)
from ftlint.core.gitignore import GlobError, compile_glob, glob_to_regex
from tests.helpers import run_python

KNOWN = ("FT001", "FT002", "FT003", "FT010", "FT101", "FT102")


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def pyproject(directory: Path, body: str) -> Path:
    return write(directory / "pyproject.toml", body)


def load_error(tmp_path: Path, body: str) -> str:
    path = pyproject(tmp_path, "[tool.ftlint]\n" + textwrap.dedent(body))
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert info.value.path == path
    return str(info.value)


# --------------------------------------------------------------------------------------------
# finding the configuration


def test_nearest_pyproject_with_table_wins(tmp_path):
    outer = pyproject(tmp_path, '[tool.ftlint]\nselect = ["FT1"]\n')
    inner = pyproject(tmp_path / "pkg", '[tool.ftlint]\nselect = ["FT0"]\n')
    (tmp_path / "pkg" / "sub").mkdir()
    cfg = load_config(tmp_path / "pkg" / "sub")
    assert cfg.path == inner
    assert cfg.root == tmp_path / "pkg"
    assert cfg.select == ("FT0",)
    assert load_config(tmp_path).path == outer


def test_pyproject_without_table_is_skipped(tmp_path):
    outer = pyproject(tmp_path, '[tool.ftlint]\nignore = ["FT002"]\n')
    pyproject(tmp_path / "pkg", '[project]\nname = "pkg"\n[tool.ruff]\nline-length = 99\n')
    cfg = load_config(tmp_path / "pkg")
    assert cfg.path == outer
    assert cfg.root == tmp_path
    assert cfg.ignore == ("FT002",)


def test_defaults_rooted_at_git_toplevel(tmp_path):
    (tmp_path / ".git").mkdir()
    pyproject(tmp_path / "a", '[project]\nname = "a"\n')
    (tmp_path / "a" / "b").mkdir()
    cfg = load_config(tmp_path / "a" / "b")
    assert cfg.path is None
    assert cfg.root == tmp_path
    assert cfg.select == ("FT",)
    assert cfg.exclude == DEFAULT_EXCLUDES
    assert cfg.fault_handlers == ("on_fault",)
    assert cfg.respect_gitignore is True and cfg.force_exclude is False


def test_defaults_rooted_at_git_file_for_worktrees(tmp_path):
    write(tmp_path / ".git", "gitdir: /elsewhere\n")
    (tmp_path / "x").mkdir()
    assert load_config(tmp_path / "x").root == tmp_path


def test_defaults_rooted_at_cwd_without_git(tmp_path):
    (tmp_path / "x").mkdir()  # no .git and no pyproject.toml at or above x (pytest's tmp)
    assert load_config(tmp_path / "x").root == tmp_path / "x"


def test_relative_cwd(tmp_path, monkeypatch):
    pyproject(tmp_path, "[tool.ftlint]\n")
    (tmp_path / "d").mkdir()
    monkeypatch.chdir(tmp_path / "d")
    cfg = load_config(Path("."))
    assert cfg.root == tmp_path and cfg.root.is_absolute()


def test_excluded_defaults_keep_site_packages():
    assert "site-packages" not in DEFAULT_EXCLUDES
    for name in (
        ".git",
        ".venv",
        "venv",
        "build",
        "dist",
        "node_modules",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".ftlint_cache",
    ):
        assert name in DEFAULT_EXCLUDES


def test_all_keys_parse(tmp_path):
    pyproject(
        tmp_path,
        """
        [tool.ftlint]
        select = ["FT0"]
        extend-select = ["FT101"]
        ignore = ["FT002"]
        exclude = ["gen"]
        extend-exclude = ["legacy/**"]
        force-exclude = true
        respect-gitignore = false
        fault-handlers = ["handle_fault*"]
        extend-fault-handlers = ["*Sentinel.retry"]
        fault-paths = ["vllm/v1/fault_tolerance/**"]
        cache-dir = "/tmp/ftc"

        [tool.ftlint.per-file-ignores]
        "tests/*.py" = ["FT001"]
        "__init__.py" = ["FT0", "FT101"]
        """,
    )
    cfg = load_config(tmp_path)
    assert cfg.select == ("FT0",)
    assert cfg.extend_select == ("FT101",)
    assert cfg.ignore == ("FT002",)
    assert cfg.exclude == ("gen",)
    assert cfg.extend_exclude == ("legacy/**",)
    assert cfg.force_exclude is True
    assert cfg.respect_gitignore is False
    assert cfg.handler_patterns() == ("handle_fault*", "*Sentinel.retry")
    assert cfg.fault_paths == ("vllm/v1/fault_tolerance/**",)
    assert cfg.per_file_ignores == (("tests/*.py", ("FT001",)), ("__init__.py", ("FT0", "FT101")))
    assert cfg.cache_path == Path("/tmp/ftc")
    with pytest.raises(AttributeError):
        cfg.select = ("FT",)  # frozen


def test_every_key_has_its_check():
    """_build_config reads each key through its entry of _KEY_CHECKS: a key added to
    CONFIG_KEYS needs one (else loading it would fail with a KeyError, not a message)."""
    from ftlint.core.config import _KEY_CHECKS, CONFIG_KEYS

    assert set(_KEY_CHECKS) == set(CONFIG_KEYS)


@pytest.mark.parametrize("body", ['[tool.ftlint.options."FT004"]\nmax-depth = 3\n', "[tool.ftlint.options]\n"])
def test_an_options_table_is_an_error_naming_the_file(tmp_path, body):
    """No rule takes options: the table, once reserved and never read, is refused, not ignored."""
    pyproject(tmp_path, "[tool.ftlint]\n" + body)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert str(info.value) == (
        f"{tmp_path / 'pyproject.toml'}: [tool.ftlint] options: "
        "no rule takes options (the table was reserved and never read); remove it"
    )


def test_cache_path_relative_to_root(tmp_path):
    assert Config(root=tmp_path).cache_path == tmp_path / ".ftlint_cache"


# --------------------------------------------------------------------------------------------
# --config


def test_explicit_pyproject(tmp_path):
    cfg_file = pyproject(tmp_path / "conf", '[tool.ftlint]\nselect = ["FT1"]\n')
    (tmp_path / "work").mkdir()
    cfg = load_config(tmp_path / "work", Path("../conf/pyproject.toml"))
    assert cfg.path == cfg_file and cfg.root == tmp_path / "conf" and cfg.select == ("FT1",)


def test_explicit_pyproject_without_table_gives_defaults(tmp_path):
    cfg_file = pyproject(tmp_path, "[tool.black]\nline-length = 1\n")
    cfg = load_config(tmp_path, cfg_file)
    assert cfg.path == cfg_file and cfg.select == ("FT",)


def test_explicit_standalone_file_has_top_level_keys(tmp_path):
    cfg_file = write(tmp_path / "ftlint.toml", 'select = ["FT1"]\nslect = 1\n')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, cfg_file)
    assert str(info.value) == f"{cfg_file}: unknown key 'slect' (did you mean 'select'?)"
    write(cfg_file, 'select = ["FT9"]\n')
    cfg = load_config(tmp_path, cfg_file)
    assert cfg.select == ("FT9",)
    with pytest.raises(ConfigError) as info:
        cfg.validate_codes(KNOWN)
    assert str(info.value) == f"{cfg_file}: select: unknown rule code or prefix 'FT9'"


def test_explicit_missing_file(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, Path("nope.toml"))
    assert str(info.value) == f"{tmp_path / 'nope.toml'}: cannot read file: No such file or directory"


def test_explicit_directory(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, tmp_path)
    assert str(info.value) == f"{tmp_path}: cannot read file: Is a directory"


# --------------------------------------------------------------------------------------------
# validation messages, one per kind


def test_invalid_toml(tmp_path):
    path = pyproject(tmp_path, "[tool.ftlint]\nselect = [\n  'a' 'b'\n]\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    message = str(info.value)
    assert message.startswith(f"{path}: invalid TOML: ")
    assert "(at line 3, column" in message and "\n" not in message
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_invalid_toml_in_skipped_parent_is_reported(tmp_path):
    pyproject(tmp_path, "this is = = not toml")
    (tmp_path / "sub").mkdir()
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(tmp_path / "sub")


def test_not_utf8(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b"[tool.ftlint]\nselect = ['\xff']\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert str(info.value).startswith(f"{path}: invalid TOML: not UTF-8")


def test_unreadable_file(tmp_path, monkeypatch):
    path = pyproject(tmp_path, "[tool.ftlint]\n")

    real_open = builtins.open

    def deny(file, *args, **kwargs):  # what a chmod 000 file gives (the tests may run as root)
        if os.fspath(file) == os.fspath(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", deny)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert str(info.value) == f"{path}: cannot read file: Permission denied"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("selct = []", "[tool.ftlint] unknown key 'selct' (did you mean 'select'?)"),
        ("extend_select = []", "[tool.ftlint] unknown key 'extend_select' (did you mean 'extend-select'?)"),
        ("perfile = 1", "[tool.ftlint] unknown key 'perfile' (did you mean 'per-file-ignores'?)"),
        ("line-length = 1", "[tool.ftlint] unknown key 'line-length'"),
        ("select = 1", "[tool.ftlint] select: expected a list of strings, got int"),
        ('select = "FT"', "[tool.ftlint] select: expected a list of strings, got str"),
        ('ignore = ["FT001", 2]', "[tool.ftlint] ignore: expected a list of strings, got int at index 1"),
        ('extend-select = [""]', "[tool.ftlint] extend-select: empty string is not a rule code or prefix"),
        ("exclude = {a = 1}", "[tool.ftlint] exclude: expected a list of strings, got table"),
        ('exclude = ["gen/[ab"]', "[tool.ftlint] exclude: invalid glob 'gen/[ab': unclosed '['"),
        ('extend-exclude = ["{a,b"]', "[tool.ftlint] extend-exclude: invalid glob '{a,b': unclosed '{'"),
        ('extend-exclude = ["a\\\\"]', "[tool.ftlint] extend-exclude: invalid glob 'a\\\\': trailing backslash"),
        ('extend-exclude = [""]', "[tool.ftlint] extend-exclude: empty string is not a valid glob"),
        (
            'fault-paths = ["x/[z-a].py"]',
            "[tool.ftlint] fault-paths: invalid glob 'x/[z-a].py': bad character range z-a",
        ),
        ('fault-handlers = ["on_fault["]', "[tool.ftlint] fault-handlers: invalid glob 'on_fault[': unclosed '['"),
        (
            "extend-fault-handlers = [true]",
            "[tool.ftlint] extend-fault-handlers: expected a list of strings, got bool at index 0",
        ),
        ('force-exclude = "yes"', "[tool.ftlint] force-exclude: expected a boolean, got str"),
        ("respect-gitignore = 1", "[tool.ftlint] respect-gitignore: expected a boolean, got int"),
        ("cache-dir = 3", "[tool.ftlint] cache-dir: expected a string, got int"),
        ('cache-dir = ""', "[tool.ftlint] cache-dir: expected a non-empty path"),
        ('vllm-api = "0.30"', "[tool.ftlint] vllm-api: expected one of 'auto', '0.25', '0.26', '0.27', got '0.30'"),
        ('per-file-ignores = ["x"]', "[tool.ftlint] per-file-ignores: expected a table of glob = [codes], got list"),
        (
            'per-file-ignores = {"tests/*.py" = "FT001"}',
            '[tool.ftlint] per-file-ignores."tests/*.py": expected a list of strings, got str',
        ),
        ('per-file-ignores = {"[x" = ["FT001"]}', "[tool.ftlint] per-file-ignores: invalid glob '[x': unclosed '['"),
        ('per-file-ignores = {"" = ["FT001"]}', "[tool.ftlint] per-file-ignores: empty string is not a valid glob"),
        (
            "options = 1",
            "[tool.ftlint] options: no rule takes options (the table was reserved and never read); remove it",
        ),
    ],
)
def test_validation_messages(tmp_path, body, message):
    assert load_error(tmp_path, body) == f"{tmp_path / 'pyproject.toml'}: {message}"


def test_tool_ftlint_not_a_table(tmp_path):
    path = pyproject(tmp_path, "[tool]\nftlint = 1\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert str(info.value) == f"{path}: [tool.ftlint] must be a table, got int"


def test_error_attributes(tmp_path):
    pyproject(tmp_path, "[tool.ftlint]\nselect = 1\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    err = info.value
    assert err.key == "select"
    assert err.message == "expected a list of strings, got int"
    assert err.path == tmp_path / "pyproject.toml"


def test_error_formatting_without_file():
    assert str(ConfigError("bad", key="--select")) == "--select: bad"
    assert str(ConfigError("bad", key="select")) == "[tool.ftlint] select: bad"
    assert str(ConfigError("bad")) == "bad"
    assert (
        str(ConfigError("bad", Path("/p/pyproject.toml"), "ignore")) == "/p/pyproject.toml: [tool.ftlint] ignore: bad"
    )


# --------------------------------------------------------------------------------------------
# rule codes


def test_validate_codes(tmp_path):
    pyproject(tmp_path, '[tool.ftlint]\nselect = ["FT0", "FT9"]\n')
    cfg = load_config(tmp_path)
    with pytest.raises(ConfigError) as info:
        cfg.validate_codes(KNOWN)
    assert str(info.value) == f"{tmp_path / 'pyproject.toml'}: [tool.ftlint] select: unknown rule code or prefix 'FT9'"
    assert info.value.key == "select"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('extend-select = ["FT5"]', "[tool.ftlint] extend-select: unknown rule code or prefix 'FT5'"),
        ('ignore = ["ft001"]', "[tool.ftlint] ignore: unknown rule code or prefix 'ft001' (did you mean 'FT001'?)"),
        (
            '[tool.ftlint.per-file-ignores]\n"tests/*" = ["FT0", "FT77"]',
            "[tool.ftlint] per-file-ignores.\"tests/*\": unknown rule code or prefix 'FT77'",
        ),
    ],
)
def test_validate_codes_names_the_key(tmp_path, body, message):
    pyproject(tmp_path, "[tool.ftlint]\n" + body + "\n")
    cfg = load_config(tmp_path)
    with pytest.raises(ConfigError) as info:
        cfg.validate_codes(KNOWN)
    assert str(info.value) == f"{tmp_path / 'pyproject.toml'}: {message}"


def test_validate_codes_accepts_prefixes_and_all(tmp_path):
    pyproject(
        tmp_path,
        '[tool.ftlint]\nselect = ["ALL"]\nignore = ["FT1", "FT002"]\n'
        '[tool.ftlint.per-file-ignores]\n"x.py" = ["FT", "ALL"]\n',
    )
    load_config(tmp_path).validate_codes(KNOWN)
    Config(root=tmp_path).validate_codes(())  # the default "FT" is fine even with no rules registered


@pytest.mark.parametrize(
    ("select", "ignore", "expected"),
    [
        (["FT"], [], set(KNOWN)),
        (["ALL"], [], set(KNOWN)),
        (["FT0"], [], {"FT001", "FT002", "FT003", "FT010"}),
        (["FT00"], [], {"FT001", "FT002", "FT003"}),
        (["FT001", "FT101"], [], {"FT001", "FT101"}),
        (["FT"], ["FT0"], {"FT101", "FT102"}),
        (["FT"], ["FT001"], set(KNOWN) - {"FT001"}),
        (["FT001"], ["FT001"], set()),  # a tie: ignore wins
        (["FT001"], ["FT"], {"FT001"}),  # the more specific select wins (ruff)
        (["FT0"], ["ALL"], {"FT001", "FT002", "FT003", "FT010"}),
        (["ALL"], ["FT"], set()),
        (None, ["FT1"], {"FT001", "FT002", "FT003", "FT010"}),
    ],
)
def test_select_codes(select, ignore, expected):
    assert select_codes(select, ignore, KNOWN) == frozenset(expected)


def test_select_codes_extend_select():
    assert select_codes(["FT00"], ["FT002"], KNOWN, extend_select=["FT1"]) == {"FT001", "FT003", "FT101", "FT102"}


def test_select_codes_unknown_cli_entry():
    with pytest.raises(ConfigError) as info:
        select_codes(["FT9"], [], KNOWN)
    assert str(info.value) == "--select: unknown rule code or prefix 'FT9'"
    assert info.value.path is None
    with pytest.raises(ConfigError) as info:
        select_codes(["FT"], ["XX1"], KNOWN)
    assert str(info.value) == "--ignore: unknown rule code or prefix 'XX1'"
    with pytest.raises(ConfigError) as info:
        select_codes(["FT"], [], KNOWN, extend_select=["FT8"])
    assert str(info.value) == "--extend-select: unknown rule code or prefix 'FT8'"
    with pytest.raises(ConfigError) as info:
        select_codes(["ft"], [], KNOWN)
    assert str(info.value) == "--select: unknown rule code or prefix 'ft' (did you mean 'FT'?)"


def test_select_codes_from_config(tmp_path):
    pyproject(tmp_path, '[tool.ftlint]\nselect = ["FT0"]\nextend-select = ["FT101"]\nignore = ["FT002"]\n')
    cfg = load_config(tmp_path)
    assert select_codes(cfg, (), KNOWN) == {"FT001", "FT003", "FT010", "FT101"}
    # extra command-line ignores and extend-selects stack on the configuration
    assert select_codes(cfg, ["FT01"], KNOWN, extend_select=["FT102"]) == {"FT001", "FT003", "FT101", "FT102"}
    bad = Config(root=tmp_path, path=tmp_path / "pyproject.toml", ignore=("FT7",))
    with pytest.raises(ConfigError) as info:
        select_codes(bad, (), KNOWN)
    assert str(info.value) == f"{tmp_path / 'pyproject.toml'}: [tool.ftlint] ignore: unknown rule code or prefix 'FT7'"
    with pytest.raises(ConfigError) as info:
        select_codes(cfg, ["FT7"], KNOWN)
    assert str(info.value) == "--ignore: unknown rule code or prefix 'FT7'"


def test_default_select_with_no_rules():
    assert select_codes(None, (), ()) == frozenset()


# --------------------------------------------------------------------------------------------
# per-file-ignores, excludes, handlers, fault paths


def test_per_file_ignores(tmp_path):
    cfg = Config(
        root=tmp_path,
        per_file_ignores=(
            ("__init__.py", ("FT001",)),
            ("tests/*.py", ("FT0",)),
            ("vllm/**/legacy_*.py", ("FT101", "FT102")),
            ("!vllm/**", ("FT010",)),
        ),
    )
    r = tmp_path
    assert cfg.ignored_codes_for(r / "vllm" / "__init__.py") == {"FT001"}
    assert cfg.ignored_codes_for(r / "a" / "b" / "__init__.py") == {"FT001", "FT010"}
    assert cfg.ignored_codes_for(r / "tests" / "test_x.py") == {"FT0", "FT010"}
    assert cfg.ignored_codes_for(r / "tests" / "deep" / "test_x.py") == {"FT010"}  # '*' stays in one directory
    assert cfg.ignored_codes_for(r / "vllm" / "legacy_a.py") == {"FT101", "FT102"}
    assert cfg.ignored_codes_for(r / "vllm" / "x" / "y" / "legacy_b.py") == {"FT101", "FT102"}
    assert cfg.ignored_codes_for(r / "vllm" / "core.py") == frozenset()
    assert cfg.ignored_codes_for(r / "tests" / "t.py", KNOWN) == {"FT001", "FT002", "FT003", "FT010"}
    ignored = cfg.ignored_codes_for(r / "tests" / "t.py")
    assert "FT003" in ignored and "FT010" in ignored and "FT101" not in ignored  # prefixes understood by `in`
    assert "FT001" in Config(root=r, per_file_ignores={"*.py": ["ALL"]}).ignored_codes_for(r / "a.py")


def test_per_file_ignores_relative_to_cwd(tmp_path, monkeypatch):
    cfg = Config(root=tmp_path, per_file_ignores={"pkg/*.py": ["FT001"]})
    (tmp_path / "pkg").mkdir()
    monkeypatch.chdir(tmp_path / "pkg")
    assert cfg.ignored_codes_for(Path("mod.py")) == {"FT001"}


def test_per_file_ignores_outside_root(tmp_path):
    cfg = Config(root=tmp_path / "root", per_file_ignores=(("*.py", ("FT001",)), ("a/*.py", ("FT002",))))
    assert cfg.ignored_codes_for(tmp_path / "a" / "x.py") == {"FT001"}


def test_is_excluded(tmp_path):
    cfg = Config(root=tmp_path, exclude=("gen", "*_pb2.py", "third_party/**", "docs/*.py", "./scripts/"))
    r = tmp_path
    assert cfg.is_excluded(r / "gen")
    assert cfg.is_excluded(r / "pkg" / "gen" / "x.py")  # any component
    assert cfg.is_excluded(r / "pkg" / "msg_pb2.py")
    assert cfg.is_excluded(r / "third_party" / "a" / "b.py")
    assert cfg.is_excluded(r / "third_party")
    assert not cfg.is_excluded(r / "pkg" / "third_party" / "b.py")  # with '/': relative to root
    assert cfg.is_excluded(r / "docs" / "conf.py")
    assert not cfg.is_excluded(r / "docs" / "api" / "conf.py")  # '*' does not cross '/'
    assert cfg.is_excluded(r / "scripts" / "x.py")
    assert cfg.is_excluded(r / "a" / "scripts" / "x.py")  # "./scripts/" is the name "scripts"
    assert not cfg.is_excluded(r / "generated.py")
    assert not cfg.is_excluded(r)


def test_is_excluded_only_below_root(tmp_path):
    cfg = Config(root=tmp_path / "build" / "proj")
    assert not cfg.is_excluded(tmp_path / "build" / "proj" / "x.py")  # "build" above the root does not count
    assert cfg.is_excluded(tmp_path / "build" / "proj" / "build" / "x.py")
    assert cfg.is_excluded(tmp_path / "elsewhere" / ".venv" / "x.py")  # outside the root: every ancestor (ruff)


def test_is_excluded_absolute_pattern(tmp_path):
    cfg = Config(root=tmp_path / "proj", exclude=(f"{tmp_path}/proj/gen/**", f"{tmp_path}/other/*.py"))
    assert cfg.is_excluded(tmp_path / "proj" / "gen" / "a.py")
    assert not cfg.is_excluded(tmp_path / "proj" / "a.py")
    assert cfg.is_excluded(tmp_path / "other" / "a.py")


def test_extend_exclude_keeps_defaults(tmp_path):
    cfg = Config(root=tmp_path, extend_exclude=("gen",))
    assert cfg.is_excluded(tmp_path / ".venv" / "a.py") and cfg.is_excluded(tmp_path / "gen" / "a.py")
    replaced = Config(root=tmp_path, exclude=("gen",))
    assert not replaced.is_excluded(tmp_path / ".venv" / "a.py")


def test_handler_patterns(tmp_path):
    cfg = Config(
        root=tmp_path, fault_handlers=("on_fault", "handle_fault*"), extend_fault_handlers=("*Sentinel.retry",)
    )
    assert cfg.handler_patterns() == ("on_fault", "handle_fault*", "*Sentinel.retry")
    assert cfg.is_fault_handler("on_fault")
    assert cfg.is_fault_handler("EngineCore.on_fault")
    assert cfg.is_fault_handler("handle_fault_abort")
    assert cfg.is_fault_handler("ClientSentinel.retry")
    assert cfg.is_fault_handler("Outer.ClientSentinel.retry")
    assert not cfg.is_fault_handler("retry")
    assert not cfg.is_fault_handler("on_fault_x")
    assert Config(root=tmp_path).handler_patterns() == ("on_fault",)


def test_fault_paths(tmp_path):
    cfg = Config(root=tmp_path, fault_paths=("vllm/v1/fault_tolerance/**", "vllm/v1/engine/core.py"))
    assert cfg.is_fault_path(tmp_path / "vllm" / "v1" / "fault_tolerance" / "x" / "y.py")
    assert cfg.is_fault_path(tmp_path / "vllm" / "v1" / "engine" / "core.py")
    assert not cfg.is_fault_path(tmp_path / "vllm" / "v1" / "engine" / "other.py")
    assert not Config(root=tmp_path).is_fault_path(tmp_path / "a.py")


# --------------------------------------------------------------------------------------------
# hashing


def test_hash_is_stable(tmp_path):
    body = '[tool.ftlint]\nselect = ["FT0"]\n[tool.ftlint.per-file-ignores]\n"b.py" = ["FT001"]\n"a.py" = ["FT1"]\n'
    pyproject(tmp_path, body)
    first = load_config(tmp_path).hash()
    assert re.fullmatch(r"[0-9a-f]{40}", first)
    # the same in any interpreter: no str hash (set or dict order) leaks into it
    probe = (
        "from ftlint.core.config import Config, load_config; "
        f"print(load_config({str(tmp_path)!r}).hash(), Config(root={str(tmp_path)!r}).hash())"
    )
    hashes = {run_python(probe, cwd=tmp_path, env={"PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert hashes == {f"{first} {Config(root=tmp_path).hash()}\n"}


@pytest.mark.parametrize(
    "change",
    [
        {"select": ("FT0",)},
        {"extend_select": ("FT101",)},
        {"ignore": ("FT001",)},
        {"per_file_ignores": (("x.py", ("FT001",)),)},
        {"exclude": ()},
        {"extend_exclude": ("gen",)},
        {"force_exclude": True},
        {"respect_gitignore": False},
        {"fault_handlers": ("x",)},
        {"extend_fault_handlers": ("y",)},
        {"fault_paths": ("vllm/**",)},
        {"vllm_api": "0.27"},
    ],
)
def test_hash_changes_with_relevant_keys(tmp_path, change):
    assert Config(root=tmp_path).hash() != Config(root=tmp_path, **change).hash()


def test_hash_ignores_cache_dir_and_origin(tmp_path):
    base = Config(root=tmp_path)
    assert base.hash() == Config(root=tmp_path, cache_dir="/elsewhere").hash()
    assert base.hash() == Config(root=tmp_path, path=tmp_path / "pyproject.toml").hash()


def test_config_is_hashable_and_comparable(tmp_path):
    a = Config(root=tmp_path, select=["FT0"], per_file_ignores={"x.py": ["FT001"]})
    b = Config(root=tmp_path, select=("FT0",), per_file_ignores=(("x.py", ("FT001",)),))
    assert a == b and hash(a) == hash(b)
    assert a.select == ("FT0",)


def test_config_pickles_and_replaces(tmp_path):
    import copy
    import dataclasses
    import pickle

    cfg = Config(
        root=tmp_path,
        path=tmp_path / "ftlint.toml",
        ignore=("FT001",),
        extend_exclude=("gen",),
        table="",
    )
    assert cfg.is_excluded(tmp_path / "gen" / "a.py")  # fills the cached matchers
    clone = pickle.loads(pickle.dumps(cfg))
    assert clone == cfg and clone.hash() == cfg.hash() and clone.table == ""
    assert clone.is_excluded(tmp_path / "gen" / "a.py")
    assert copy.deepcopy(cfg) == cfg
    changed = dataclasses.replace(cfg, select=("FT0",))
    assert changed.select == ("FT0",) and changed.extend_exclude == ("gen",)


# --------------------------------------------------------------------------------------------
# the glob compiler behind every pattern key


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("*.py", ["a.py", ".py"], ["a/b.py", "a.pyc"]),
        ("a/*/c", ["a/b/c"], ["a/c", "a/b/x/c"]),
        ("a/**/c", ["a/c", "a/b/c", "a/b/x/c"], ["b/c", "a/bc"]),
        ("**/c.py", ["c.py", "x/c.py", "x/y/c.py"], ["xc.py"]),
        ("a/**", ["a", "a/b", "a/b/c"], ["ab", "b/a"]),
        ("**", ["a", "a/b"], []),
        ("a**b", ["ab", "axxb"], ["a/b"]),
        ("?.py", ["a.py"], ["ab.py", "/.py"]),
        ("[ab].py", ["a.py", "b.py"], ["c.py"]),
        ("[!ab].py", ["c.py"], ["a.py", "/.py"]),
        ("[^a].py", ["c.py"], ["a.py"]),
        ("[a-c]x", ["bx"], ["dx"]),
        ("[]]x", ["]x"], ["x"]),
        ("{a,b/c}.py", ["a.py", "b/c.py"], ["c.py"]),
        ("\\*.py", ["*.py"], ["a.py"]),
        ("a+b(c).py", ["a+b(c).py"], ["aab(c).py"]),
    ],
)
def test_glob_semantics(pattern, matches, misses):
    regex = compile_glob(pattern)
    for path in matches:
        assert regex.fullmatch(path), (pattern, path)
    for path in misses:
        assert not regex.fullmatch(path), (pattern, path)


@pytest.mark.parametrize(
    ("pattern", "error"), [("[ab", "unclosed '['"), ("{a", "unclosed '{'"), ("a\\", "trailing backslash")]
)
def test_glob_errors(pattern, error):
    with pytest.raises(GlobError, match=re.escape(error)):
        glob_to_regex(pattern)
    glob_to_regex(pattern, strict=False)  # lenient mode (gitignore) reads it literally
