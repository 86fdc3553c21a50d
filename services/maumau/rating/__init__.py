"""The rating service: each finished match applied exactly once to XP and levels, the ranked
ladder per preset and season (openskill Plackett-Luce), leaderboards, profiles and history.

Installing compiles the pure computation per result (``ladder``, ``farming``, ``states``) with
mypyc, as the rules core (``maumau.rules.searchpath``): the compiled modules run where they were
built from these very sources, the pure ones elsewhere and with ``MAUMAU_PURE_PYTHON=1``."""

from maumau.rules.searchpath import search_compiled_first

search_compiled_first(__path__, __file__, __name__)
