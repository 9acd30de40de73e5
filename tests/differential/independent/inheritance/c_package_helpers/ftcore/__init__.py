"""Building blocks for engine fault handlers."""

from .base import FaultHandlerTemplate
from .mixins import AbortOrResumeMixin, UnconfirmedTailMixin

__all__ = ["AbortOrResumeMixin", "FaultHandlerTemplate", "UnconfirmedTailMixin"]
