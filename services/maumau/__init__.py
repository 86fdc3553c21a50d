"""The Mau-Mau platform: rules core, services and their shared building blocks."""
