"""Extract the exact channel of a randomizer from its Python source (never running it).

``source`` finds and parses the file; ``symbolic`` holds the values and exact decisions;
``draws`` the distributions of the random calls; ``natives`` the library functions read;
``interpreter`` the statements and expressions; ``channel`` enumerates the paths into rows;
``spec`` writes the smallest exact spec form; ``command`` is ``ldpaudit extract`` and the
extraction behind ``verify --from-code``.
"""

from ldpaudit._callable import lazy_names

_API = {
    "extract": "ldpaudit.extract.channel",
    "Extraction": "ldpaudit.extract.channel",
    "spec_text": "ldpaudit.extract.spec",
    "extracted_mechanism": "ldpaudit.extract.command",
}
__getattr__ = lazy_names(__name__, _API)
__all__ = list(_API)
