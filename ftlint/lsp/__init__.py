"""`ftlint server`: a Language Server (pygls) that reports ftlint's findings as
diagnostics (pushed, or pulled by an LSP 3.17 client) on open, change and save, and
offers their fixes and `# noqa` as code actions. pygls is an optional extra
(`pip install 'ftlint[lsp]'`): nothing outside this package imports it, and this module
imports it only in serve()."""

from __future__ import annotations


def serve() -> int:
    """Run the server on stdin/stdout until the client says exit; returns the exit code."""
    from ftlint.lsp.server import create_server

    server = create_server()
    server.start_io()
    return 0
