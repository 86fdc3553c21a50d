"""The rules core: every Mau-Mau rule system as pure, deterministic Python with no I/O."""
