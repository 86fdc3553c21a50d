"""``python -m maumau.rating.migrate``: move the rating keys of earlier versions, all under the
one hash tag ``{rating}``, into the per-preset layout (``maumau.rating.store``).

Run it once when upgrading, with the rating replicas stopped, against the same Redis (the
rating service's variables, e.g. ``REDIS_URL``); then start the new replicas. Results that
finished meanwhile wait in the results streams and are applied once the replicas run. Running
it again continues where it stopped; with nothing left it moves nothing.
"""

from __future__ import annotations

import asyncio
import sys

from maumau.common.config import ConfigError
from maumau.common.redis_server import open_redis
from maumau.common.settings import load_settings
from maumau.rating.settings import Settings
from maumau.rating.store import RatingStore


async def migrate(settings: Settings) -> int:
    async with open_redis(settings.redis()) as client:
        return await RatingStore(client).migrate_single_slot()


def main() -> None:
    try:
        settings = load_settings(Settings)
    except ConfigError as error:
        print(f"rating migrate: {error}", file=sys.stderr)
        sys.exit(2)
    moved = asyncio.run(migrate(settings))
    print(f"moved {moved} rating keys of the single-slot layout into the per-preset layout")


if __name__ == "__main__":
    main()
