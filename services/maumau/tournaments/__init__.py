"""The tournaments service: East-Frisian tournaments run from registration to the champion."""
