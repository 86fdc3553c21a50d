"""The subcommands of ``maumau``: one module each, listed in :data:`COMMANDS`.

A module adds its parser with ``add(commands)`` and sets ``run``, an async function taking the
parsed arguments and returning the exit status. A new subcommand is a new module and one more
name here.
"""

COMMANDS = (
    "play",
    "queue",
    "party",
    "room",
    "leaderboard",
    "profile",
    "tournaments",
    "tournament",
    "login",
    "account",
)
