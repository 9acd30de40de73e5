"""Syntax: CST helpers (matchers, positions, the CST-to-IR lowering, edits). Imports only ftlint.core."""
