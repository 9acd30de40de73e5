"""A balanced binary tree over a request list, and a recursive fold over it."""

from dataclasses import dataclass
from typing import Any, Callable, Optional


@dataclass
class Node:
    request: Any = None
    left: Optional["Node"] = None
    right: Optional["Node"] = None


def build(items, lo=0, hi=None):
    if hi is None:
        hi = len(items)
    if lo >= hi:
        return None
    mid = (lo + hi) // 2
    return Node(items[mid], build(items, lo, mid), build(items, mid + 1, hi))


def fold(node, leaf: Callable, merge: Callable, empty):
    if node is None:
        return empty
    here = leaf(node.request)
    return merge(merge(fold(node.left, leaf, merge, empty), here), fold(node.right, leaf, merge, empty))


def in_order(node):
    if node is None:
        return
    yield from in_order(node.left)
    yield node.request
    yield from in_order(node.right)
