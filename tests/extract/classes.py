"""Clients written as classes, read by ``ldpaudit extract`` as ``file.py:Class(args).method``
(tests/test_extract_classes.py): a planted bug in a constructor, clients whose state carries
from one call to the next, and constructs outside the subset. Never imported or run by the
tests; the base class comes from the copy of pure-ldp 1.2.0 in tests/fixtures/pure_ldp_1_2_0
(on sys.path in the tests)."""
import math
import random
from dataclasses import dataclass

import numpy as np
from pure_ldp.core import FreqOracleClient
from somewhere_not_installed import Unreadable


class SUEHalvingBug(FreqOracleClient):
    """pure-ldp 1.2.0's UEClient (SUE) with one change in update_params: p is computed from ε
    where SUE needs ε/2, so each bit is flipped as for 2ε and the client is 2ε-LDP, not ε-LDP."""

    def __init__(self, epsilon, d, index_mapper=None):
        super().__init__(epsilon, d, index_mapper=index_mapper)
        self.update_params(epsilon, d, index_mapper)

    def update_params(self, epsilon=None, d=None, index_mapper=None):
        super().update_params(epsilon, d, index_mapper)
        if epsilon is not None:
            const = math.pow(math.e, self.epsilon)  # planted: SUE's is math.pow(math.e, self.epsilon / 2)
            self.p = const / (const + 1)
            self.q = 1 - self.p

    def _perturb(self, index):
        oh_vec = np.random.choice([1, 0], size=self.d, p=[self.q, 1 - self.q])
        oh_vec[index] = 0
        if random.random() < self.p:
            oh_vec[index] = 1
        return oh_vec


class CountingKRR:
    """k-RR that reports the truth once it has answered 100 times: a budget kept on the object,
    so the second call's channel is not the first's."""

    def __init__(self, epsilon, d):
        self.d = d
        self.p = math.exp(epsilon) / (math.exp(epsilon) + d - 1)
        self.reports = 0

    def privatise(self, x):
        self.reports += 1
        if self.reports > 100:
            return x
        if random.random() < self.p:
            return x
        y = random.randrange(self.d - 1)
        return y if y < x else y + 1


class RememberingKRR:
    """k-RR that answers a value it was asked before as it answered it the first time (state
    changed in place, a list on the object)."""

    def __init__(self, epsilon, d):
        self.d = d
        self.p = math.exp(epsilon) / (math.exp(epsilon) + d - 1)
        self.seen = []

    def privatise(self, x):
        if x in self.seen:
            return x
        self.seen.append(x)
        if random.random() < self.p:
            return x
        y = random.randrange(self.d - 1)
        return y if y < x else y + 1


class ScratchKRR:
    """k-RR through a helper method and an attribute used as scratch: written before it is read
    in every call, so each call has the same channel."""

    def __init__(self, epsilon, d=4):
        self.d = d
        self.t = math.exp(epsilon)

    def _keep(self):
        self.last_keep = random.random() < self.t / (self.t + self.d - 1)
        return self.last_keep

    def privatise(self, x):
        if self._keep():
            return x
        y = random.randrange(self.d - 1)
        return y if y < x else y + 1


class SeededInit:
    """Draws its "other" value once, when it is built: every report shares it."""

    def __init__(self, epsilon, d):
        self.d = d
        self.p = math.exp(epsilon) / (math.exp(epsilon) + d - 1)
        self.other = random.randrange(d)

    def privatise(self, x):
        return x if random.random() < self.p else self.other


class WithProperty:
    def __init__(self, epsilon):
        self.epsilon = epsilon

    @property
    def p(self):
        return math.exp(self.epsilon) / (math.exp(self.epsilon) + 1)

    def privatise(self, x):
        return x if random.random() < self.p else 1 - x


@dataclass
class DataclassRR:
    epsilon: float = 1.0

    def privatise(self, x):
        return x


class FromUnreadable(Unreadable):
    def privatise(self, x):
        return x


class ChangesItsHelper:
    """Changes an attribute of an object it built in __init__ (state outside self's own)."""

    def __init__(self, epsilon):
        self.inner = ScratchKRR(epsilon, 2)

    def privatise(self, x):
        self.inner.d = 3
        return self.inner.privatise(x)


class SetsByName:
    """Sets its probability with setattr (a name computed at run time)."""

    def __init__(self, epsilon):
        setattr(self, "p", math.exp(epsilon) / (math.exp(epsilon) + 1))

    def privatise(self, x):
        return x if random.random() < self.p else 1 - x


class CapturedCache:
    """Remembers the inputs in a list a lambda made in __init__ captured: state outside self's
    attributes that still carries from one call to the next."""

    def __init__(self, epsilon):
        seen = []
        self.p = math.exp(epsilon) / (math.exp(epsilon) + 1)
        self.remember = lambda x: seen.append(x) or seen.count(x) > 1

    def privatise(self, x):
        if self.remember(x):
            return x
        return x if random.random() < self.p else 1 - x
