from ftlint.cli import run

run()
