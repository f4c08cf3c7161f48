"""bots.addresses: which addresses a bot may have (IPv4 and IPv6, embedded IPv4 forms) and which
URLs can be a bot's; the refusal says why and how to allow it."""

from __future__ import annotations

import ipaddress
import re

import pytest

from bots.addresses import BadBotURL, BlockedAddress, check_address, check_url, classify_address

BLOCKED = [
    ("127.0.0.1", "loopback"), ("127.8.9.10", "loopback"), ("::1", "loopback"),
    ("10.1.2.3", "private"), ("172.16.0.1", "private"), ("192.168.1.1", "private"),
    ("fd12::1", "private"),
    ("100.64.0.1", "carrier-grade NAT"), ("100.127.255.254", "carrier-grade NAT"),
    ("169.254.169.254", "cloud metadata"), ("fd00:ec2::254", "cloud metadata"),
    ("100.100.100.200", "cloud metadata"),
    ("169.254.1.1", "link-local"), ("fe80::1", "link-local"),
    ("224.0.0.1", "multicast"), ("239.255.255.250", "multicast"), ("ff02::1", "multicast"),
    ("0.0.0.0", "unspecified"), ("::", "unspecified"),
    ("240.0.0.1", "reserved"), ("255.255.255.255", "reserved"), ("192.0.2.1", "reserved"),
    ("198.18.0.1", "reserved"), ("2001:db8::1", "reserved"), ("0.1.2.3", "reserved"),
    # IPv4 inside IPv6: mapped, 6to4, NAT64, IPv4-compatible.
    ("::ffff:127.0.0.1", "loopback"), ("::ffff:10.0.0.1", "private"),
    ("::ffff:169.254.169.254", "cloud metadata"), ("2002:a00:1::", "private"),
    ("64:ff9b::a9fe:a9fe", "cloud metadata"), ("::7f00:1", "loopback"),
]
PUBLIC = ["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "::ffff:8.8.8.8", "2002:808:808::"]


@pytest.mark.parametrize("address, why", BLOCKED)
def test_blocked_addresses(address: str, why: str) -> None:
    assert classify_address(ipaddress.ip_address(address)) == why


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses(address: str) -> None:
    assert classify_address(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize("url, says", [
    ("ftp://bot.example", "must be http:// or https://, not ftp"),
    ("http://", "needs a host"),
    ("http://u:p@bot.example/", "credentials"),
    ("http://bot.example/#x", "#fragment"),
    ("not a url", "'not a url' is not a URL: it must start with http:// or https://"),
    ("123", "'123' is not a URL: it must start with http:// or https://"),
    (123, "must be a string, not int"),
    ("http://bot.example:99999/", "port 99999 is out of range (1-65535)"),
    ("http://bot.example:0/", "port 0 is out of range"),
])
def test_bad_urls(url, says: str) -> None:
    with pytest.raises(BadBotURL, match=re.escape(says)):
        check_url(url)


def test_a_refused_address_is_named_with_the_right_article_and_how_to_allow_it() -> None:
    """A local bot refused as blocked_address is a newcomer's first surprise: the message names
    the setting and the commands' flag, or says that neither would help."""
    with pytest.raises(BlockedAddress, match=r"^0\.0\.0\.0 is an unspecified address: "
                                             r"refused even with BOTS_ALLOW_PRIVATE_ADDRESSES=1 "
                                             r"or --allow-private$"):
        check_address(ipaddress.ip_address("0.0.0.0"), allow_private=True)
    for address, why in (("127.0.0.1", "a loopback"), ("10.1.2.3", "a private")):
        with pytest.raises(BlockedAddress, match=rf"^{re.escape(address)} is {why} address: "
                                                 r"bots on this machine or a private network "
                                                 r"need BOTS_ALLOW_PRIVATE_ADDRESSES=1 \(make "
                                                 r"run sets it\) or --allow-private "):
            check_address(ipaddress.ip_address(address), allow_private=False)
