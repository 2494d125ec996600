"""Moved to :mod:`ldpaudit.render.text` (every stage prints exact values, so the module lies below
them). Kept while work in progress still imports it from here; import ``ldpaudit.render.text``."""

from ldpaudit.render.text import MAX_PRINTED_BITS, big_integer_text, for_people, human, sstr

__all__ = ["MAX_PRINTED_BITS", "big_integer_text", "for_people", "human", "sstr"]
