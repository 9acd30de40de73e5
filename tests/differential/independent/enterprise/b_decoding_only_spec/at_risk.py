from __future__ import annotations

from abc import ABC, abstractmethod


class Specification(ABC):
    @abstractmethod
    def is_satisfied_by(self, request) -> bool: ...

    def and_(self, other: "Specification") -> "Specification":
        return _And(self, other)

    def not_(self) -> "Specification":
        return _Not(self)


class _And(Specification):
    def __init__(self, a: Specification, b: Specification) -> None:
        self.a, self.b = a, b

    def is_satisfied_by(self, request) -> bool:
        return self.a.is_satisfied_by(request) and self.b.is_satisfied_by(request)


class _Not(Specification):
    def __init__(self, a: Specification) -> None:
        self.a = a

    def is_satisfied_by(self, request) -> bool:
        return not self.a.is_satisfied_by(request)


class HasInFlightTokens(Specification):
    def is_satisfied_by(self, request) -> bool:
        return request.num_in_flight_tokens > 0


class IsDecoding(Specification):
    """Past its prompt: the step that failed was a decode step for it."""

    def is_satisfied_by(self, request) -> bool:
        return request.num_output_tokens > 0


class AtRiskSelector:
    def __init__(self, spec: Specification) -> None:
        self._spec = spec

    @classmethod
    def default(cls) -> "AtRiskSelector":
        return cls(IsDecoding().and_(HasInFlightTokens()))

    def select(self, requests) -> list:
        return [r for r in requests if self._spec.is_satisfied_by(r)]


class TailEvictionService:
    def evict(self, kv_cache_manager, requests) -> None:
        doomed: set[int] = set()
        for r in requests:
            confirmed = r.num_computed_tokens - r.num_in_flight_tokens
            for mgr in kv_cache_manager.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(r.request_id, [])
                doomed.update(b.block_id for b in blocks[confirmed // mgr.block_size :] if not b.is_null)
        kv_cache_manager.evict_blocks(doomed)
