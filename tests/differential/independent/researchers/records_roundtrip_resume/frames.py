"""Tiny records <-> columns conversion, pandas style without pandas."""


def to_columns(records, keys):
    return {k: [rec[k] for rec in records] for k in keys}


def to_records(cols):
    keys = list(cols)
    return [dict(zip(keys, vals)) for vals in zip(*(cols[k] for k in keys))]
