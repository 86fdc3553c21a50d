"""Players: registration with a display name, and the directory every service reads names from."""
