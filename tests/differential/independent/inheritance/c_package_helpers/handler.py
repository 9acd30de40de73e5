# Intended: correct.
# Idioms: a helper package (ftcore) with an abstract template base, mixins and tail helpers; leaf FaultHandler composed by multiple inheritance; the abort/resume switch as a mixin class attribute.
# switch: resume
"""Fault handler assembled from the ftcore package."""

from ftcore import AbortOrResumeMixin, FaultHandlerTemplate, UnconfirmedTailMixin


class FaultHandler(UnconfirmedTailMixin, AbortOrResumeMixin, FaultHandlerTemplate):
    resume = False
