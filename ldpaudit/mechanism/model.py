"""The mechanism model: an immutable, validated channel Q(y|x) with named parameters.

A :class:`Mechanism` holds parameters (sympy symbols with assumptions and range
constraints), an input domain, a channel and a claimed ε. The channel forms, one module
each, sit behind one interface (:mod:`ldpaudit.mechanism.core` lists it):

* :class:`ExplicitChannel` (:mod:`~ldpaudit.mechanism.explicit`) — a finite matrix of exact
  sympy entries (rows = inputs).
* :class:`StructuredChannel` (:mod:`~ldpaudit.mechanism.structured`) — outputs fall into a
  few classes relative to the input (k-RR: ``y == x`` / ``y != x``; k-subset: ``x in y`` /
  ``x not in y``), each with a symbolic multiplicity and a per-output weight, so d = 10**6
  costs nothing.
* :class:`ProductChannel` (:mod:`~ldpaudit.mechanism.product`) — independent coordinates
  whose law depends only on whether the coordinate is the input's (k-RAPPOR/SUE, OUE, the
  Laplace histogram).
* :class:`DensityChannel` (:mod:`~ldpaudit.mechanism.density`) — a real output with a
  symbolic density f(z | x).
* :class:`RealInputChannel` (:mod:`~ldpaudit.mechanism.realinput`) — a real input, finitely
  many outputs.
* ``BloomChannel`` (:mod:`~ldpaudit.mechanism.hashing`) — O-RAPPOR's hashed Bloom filter.

Below them: :mod:`~ldpaudit.mechanism.params` (parameters, X/Y/Z, size limits),
:mod:`~ldpaudit.mechanism.spaces` (input domains, output spaces),
:mod:`~ldpaudit.mechanism.checks` (shared checks) and :mod:`~ldpaudit.mechanism.core` (the
:class:`Mechanism` value, which imports no form).

This module only re-exports the public names for users (``from ldpaudit.mechanism.model
import Mechanism``); code inside ldpaudit imports the defining modules.
"""

from __future__ import annotations

from typing import Union

from ldpaudit.mechanism.checks import is_zero, sample_points
from ldpaudit.mechanism.core import Mechanism, materialize
from ldpaudit.mechanism.density import DensityChannel
from ldpaudit.mechanism.explicit import ExplicitChannel
from ldpaudit.mechanism.hashing import BloomChannel
from ldpaudit.mechanism.params import (
    MAX_MATERIALIZED_ENTRIES,
    MAX_SIZE,
    X,
    Y,
    Z,
    Parameter,
    integer,
    parse_in,
    positive,
    symbols_for,
)
from ldpaudit.mechanism.product import CoordinateLaw, ProductChannel
from ldpaudit.mechanism.realinput import RealInputChannel
from ldpaudit.mechanism.spaces import (
    CohortSpace,
    Domain,
    ElementSpace,
    FiniteDomain,
    IntervalDomain,
    OutputSpace,
    SubsetSpace,
)
from ldpaudit.mechanism.structured import OutputClass, StructuredChannel

Channel = Union[ExplicitChannel, StructuredChannel, ProductChannel, DensityChannel, RealInputChannel, BloomChannel]

__all__ = [
    "X", "Z", "Parameter", "integer", "positive", "FiniteDomain", "IntervalDomain", "ElementSpace", "SubsetSpace",
    "CohortSpace", "ExplicitChannel", "OutputClass", "StructuredChannel", "CoordinateLaw", "ProductChannel",
    "DensityChannel", "RealInputChannel", "Y", "Mechanism", "materialize", "is_zero", "sample_points",
    "BloomChannel", "Channel", "Domain", "OutputSpace", "MAX_MATERIALIZED_ENTRIES", "MAX_SIZE", "symbols_for",
    "parse_in",
]
