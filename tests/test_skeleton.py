import maumau.rules


def test_rules_core_is_importable_without_services() -> None:
    """The rules core is a plain package: importing it pulls in no service code."""
    assert maumau.rules.__doc__
