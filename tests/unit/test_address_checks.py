"""An address is checked the same way every time it is checked: a good one passes,
a bad one is refused each time, saying why in the language of that moment (what
was remembered of an earlier check is only that an address passed)."""

from __future__ import annotations

import pytest

from pbem import i18n
from pbem.service.addresses import NotAnAddress, checked_address

BAD = ["ann@", "ann lee@example.com", "änn@example.com", '"ann"@example.com', "a@-x-.org", ""]


def test_a_good_address_passes_every_time():
    for _ in range(3):
        assert checked_address("  ann@example.com ") == "ann@example.com"


@pytest.mark.parametrize("address", BAD)
def test_a_bad_address_is_refused_every_time_in_the_language_of_the_moment(address):
    with pytest.raises(NotAnAddress) as english:
        checked_address(address)
    with i18n.speaking("de"), pytest.raises(NotAnAddress) as german:
        checked_address(address)
    with pytest.raises(NotAnAddress) as again:
        checked_address(address)
    assert "is not an email address" in str(english.value)
    assert "ist keine E-Mail-Adresse" in str(german.value)
    assert str(again.value) == str(english.value)


def test_a_long_address_is_refused_and_never_remembered():
    """Only what could be an address is remembered: a long text sent as one fills no
    memory, however often it is sent."""
    from pbem.service import addresses

    kept = addresses._fine.cache_info().currsize
    for n in range(3):
        with pytest.raises(NotAnAddress, match="longer than"):
            checked_address("a" * 100_000 + f"{n}@example.com")
    assert addresses._fine.cache_info().currsize == kept
