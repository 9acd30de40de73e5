"""--output-file writes through what is at the path (issue 23 item 2)."""

import json
import os
import threading

from tests.helpers import run_ftlint, write_project

HANDLER = "class S:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n"


def test_a_fifo_is_written_to_not_replaced(tmp_path):
    write_project(tmp_path, {"m.py": HANDLER})
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = run_ftlint("check", "--format", "json", "-o", str(fifo), "m.py", cwd=tmp_path, timeout=120)
    reader.join(20)
    assert proc.returncode == 1, proc.stderr
    assert got and len(json.loads(got[0])) == 1
    assert fifo.is_fifo()  # still the FIFO, not a regular file renamed over it


def test_a_symlink_target_gets_the_report_and_the_link_stays(tmp_path):
    write_project(tmp_path, {"m.py": HANDLER})
    (tmp_path / "real.json").write_text("old")
    (tmp_path / "link.json").symlink_to("real.json")
    proc = run_ftlint("check", "--format", "json", "-o", "link.json", "m.py", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert (tmp_path / "link.json").is_symlink()
    assert len(json.loads((tmp_path / "real.json").read_text())) == 1


def test_dev_null_is_written_to_and_dev_full_is_a_clear_error(tmp_path):
    """Through links in tmp_path, so that code which replaces the path (as root) replaces
    only the link, never the device itself."""
    write_project(tmp_path, {"m.py": HANDLER})
    (tmp_path / "null").symlink_to("/dev/null")
    (tmp_path / "full").symlink_to("/dev/full")
    proc = run_ftlint("check", "-o", "null", "m.py", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert (tmp_path / "null").is_symlink() and (tmp_path / "null").is_char_device()
    proc = run_ftlint("check", "-o", "full", "m.py", cwd=tmp_path)
    assert proc.returncode == 2 and "full" in proc.stderr and "No space left" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert (tmp_path / "full").is_symlink() and (tmp_path / "full").is_char_device()


def test_a_missing_directory_is_named(tmp_path):
    write_project(tmp_path, {"m.py": HANDLER})
    proc = run_ftlint("check", "-o", "/nonexistent/x", "m.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "does not exist" in proc.stderr and "Is a directory" not in proc.stderr, proc.stderr
