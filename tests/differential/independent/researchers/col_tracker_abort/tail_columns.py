"""Column helpers: turn the running batch into a dict of parallel lists."""

from collections import defaultdict


def empty_frame():
    # one "column" per field, filled row by row
    return defaultdict(list)


def add_row(frame, **row):
    for key, value in row.items():
        frame[key].append(value)
    return frame


def n_rows(frame):
    lengths = {k: len(v) for k, v in frame.items()}
    assert len(set(lengths.values())) <= 1, f"ragged frame: {lengths}"
    return max(lengths.values(), default=0)
