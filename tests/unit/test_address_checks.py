"""An address is checked the same way every time it is checked: a good one passes,
a bad one is refused each time, saying why in the language of that moment (what
was remembered of an earlier check is only that an address passed)."""

from __future__ import annotations

import pytest

from pbem import i18n
from pbem.service.addresses import NotAnAddress, address_key, checked_address, domain_key

BAD = [
    "ann@",
    "ann lee@example.com",
    "änn@example.com",  # SMTPUTF8 would be needed: the server does not speak it
    '"ann"@example.com',
    "a@-x-.org",
    "",
    "ännexample.com",
    "ann@müller..de",
    "ann@☃.com",  # a symbol: no domain name under IDNA 2008
    "ann@xn--zz.de",  # an "xn--" label that is no internationalised one
    "ann@-müller.de",
]


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


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("anna@müller.de", "anna@xn--mller-kva.de"),
        (" Anna@MÜLLER.DE ", "Anna@xn--mller-kva.de"),  # UTS 46 maps the domain's case
        ("anna@straße.de", "anna@xn--strae-oqa.de"),  # IDNA 2008: not strasse.de
        ("anna@bücher.example.com", "anna@xn--bcher-kva.example.com"),
        ("anna@xn--mller-kva.de", "anna@xn--mller-kva.de"),
        ("ivan@пример.рф", "ivan@xn--e1afmkfd.xn--p1ai"),
    ],
)
def test_an_internationalised_domain_is_kept_in_its_ascii_form(given, kept):
    assert checked_address(given) == kept
    assert checked_address(kept) == kept  # and that form passes as it is
    assert address_key(given) == address_key(kept) == kept.lower()


def test_spellings_of_one_address_have_one_key():
    assert address_key("Ann@Müller.DE") == address_key("ann@xn--MLLER-kva.de")
    assert address_key("ann@strasse.de") != address_key("ann@straße.de")
    assert domain_key("MÜLLER.de") == "xn--mller-kva.de" and domain_key("Example.COM") == (
        "example.com"
    )
    assert address_key("ann@☃.com") == "ann@☃.com"  # no domain: compared as it is


def test_why_a_non_ascii_address_is_refused_is_said():
    with pytest.raises(NotAnAddress, match="before the @ must be plain ASCII"):
        checked_address("änn@müller.de")
    with pytest.raises(NotAnAddress, match=r"'☃\.com' is not a domain name"):
        checked_address("ann@☃.com")
    with pytest.raises(NotAnAddress, match="no @ between a name and a domain"):
        checked_address("ännexample.com")
    with i18n.speaking("de"), pytest.raises(NotAnAddress, match="vor dem @ muss reines ASCII"):
        checked_address("änn@müller.de")


def test_a_long_address_is_refused_and_never_remembered():
    """Only what could be an address is remembered: a long text sent as one fills no
    memory, however often it is sent."""
    from pbem.service import addresses

    kept = addresses._fine.cache_info().currsize
    domains = addresses._encoded.cache_info().currsize
    for n in range(3):
        with pytest.raises(NotAnAddress, match="longer than"):
            checked_address("a" * 100_000 + f"{n}@example.com")
        with pytest.raises(NotAnAddress, match="longer than"):
            checked_address(f"ann{n}@" + "ü" * 100_000 + ".de")
        assert address_key(f"ann{n}@" + "ü" * 100_000) == f"ann{n}@" + "ü" * 100_000
    assert addresses._fine.cache_info().currsize == kept
    assert addresses._encoded.cache_info().currsize == domains
