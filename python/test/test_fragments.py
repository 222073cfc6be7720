"""The capture tools reassemble IPv4 and IPv6 fragments: a capture (a real pcap file, written
here with Scapy) of an exchange whose CREDIT_REQUEST and whose opaque data packet were cut
into IP fragments, some out of order. `rdcc pcap dump` finds the request in the frame of its
last fragment, as tshark (which reassembles by default) shows it; `rdcc pcap stats` counts the
data packet's octets as received. Without reassembly the request would be missing and the
received octets zero."""

import json
import os
import shutil
import subprocess

import pytest
from scapy.all import IP, UDP, Ether, IPv6, IPv6ExtHdrFragment, fragment, fragment6, wrpcap

import rdcc
from rdcc.scapy import RDCC, CreditGrant, CreditRequest, MsgDone, RdccData
from conftest import RDCC_TOOL, SOURCE_DIR

PORT, DATA_PORT, ID, LENGTH = 50000, 50001, 0x100, 3000


def exchange(ipv6):
    """The frames of one message's exchange, sender 40000 -> receiver 50000: the request cut
    into 24-octet fragments (the last first), a grant, the data packet cut to a 1280-octet
    path, MSG_DONE."""
    if ipv6:
        up, down = IPv6(src="2001:db8::2", dst="2001:db8::1"), IPv6(src="2001:db8::1",
                                                                    dst="2001:db8::2")
    else:
        up, down = IP(src="10.0.0.2", dst="10.0.0.1", id=7), IP(src="10.0.0.1", dst="10.0.0.2")
    header = dict(association_id=0x5A17C0DE, epoch=3)
    request = UDP(sport=40000, dport=PORT) / RDCC(sequence_number=1, **header) / CreditRequest(
        message_id=ID, message_length=LENGTH, weight=1, binding_kind=2, binding_value=ID)
    grant = UDP(sport=PORT, dport=40000) / RDCC(sequence_number=1, flags="FINAL", **header) / \
        CreditGrant(message_id=ID, grant_limit=LENGTH, pacing_rate=100000)
    data = UDP(sport=40001, dport=DATA_PORT) / RdccData(flags="LAST", message_identifier=ID) / \
        (bytes(range(250)) * 12)  # LENGTH octets
    done = UDP(sport=PORT, dport=40000) / RDCC(sequence_number=2, **header) / MsgDone(
        message_id=ID, octets_received=LENGTH)
    if ipv6:
        request_parts = fragment6(up / IPv6ExtHdrFragment(id=0x77) / request, 40 + 8 + 24)
        data_parts = fragment6(up / IPv6ExtHdrFragment(id=0x78) / data, 1280)
    else:
        request_parts = fragment(up / request, fragsize=24)
        data_parts = fragment(IP(src="10.0.0.2", dst="10.0.0.1", id=8) / data, fragsize=1480)
    assert len(request_parts) >= 3 and len(data_parts) >= 3
    frames = list(reversed(request_parts)) + [down / grant] + list(data_parts) + [down / done]
    return [Ether(src="02:00:00:00:00:02", dst="02:00:00:00:00:01") / f for f in frames], \
        len(request_parts)


def run(*args):
    return subprocess.run([RDCC_TOOL, *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("ipv6", [False, True], ids=["ipv4", "ipv6"])
def test_fragmented_request_and_data_are_reassembled(tmp_path, ipv6):
    frames, request_fragments = exchange(ipv6)
    capture = tmp_path / "fragments.pcap"
    for i, f in enumerate(frames):
        f.time = 1735689600 + i * 1e-5
    wrpcap(str(capture), frames)

    lines = [json.loads(line) for line in run("pcap", "dump", "--port", str(PORT), "--json",
                                                str(capture)).splitlines()]
    messages = [m for m in lines if "type" in m]
    assert [m["type"] for m in messages] == ["CREDIT_REQUEST", "CREDIT_GRANT", "MSG_DONE"]
    request = messages[0]
    assert request["frame"] == request_fragments  # the last fragment of the request
    assert (request["message_id"], request["message_length"]) == (ID, LENGTH)
    assert not [m for m in lines if m.get("error")]

    stats = json.loads(run("pcap", "stats", "--port", str(PORT), "--data-port", str(DATA_PORT),
                           "--json", str(capture)))
    assert stats["capture"]["reassembled_packets"] == 2
    assert stats["capture"]["malformed_frames"] == 0
    association = stats["receivers"][0]["associations"][0]
    assert association["octets_granted"] == LENGTH
    assert stats["receivers"][0]["octets_received"] == 3000

    # tshark (the Lua dissector) reassembles the same capture into the same RDCC frames.
    tshark = shutil.which("tshark")
    if tshark is None:
        pytest.skip("tshark not found (scripts/setup.sh installs it)")
    lua = os.path.join(SOURCE_DIR, "dissector", "lua", "rdcc.lua")
    out = subprocess.run([tshark, "-X", f"lua_script:{lua}", "-r", str(capture), "-d",
                          f"udp.port=={PORT},rdcc", "-Y", "rdcc", "-T", "fields", "-e",
                          "frame.number", "-e", "rdcc.type"], check=True, capture_output=True,
                         text=True).stdout.split()
    assert out[0::2] == [str(m["frame"]) for m in messages]
    assert [rdcc.MESSAGE_TYPES[int(t, 0)] for t in out[1::2]] == [m["type"] for m in messages]


def test_a_lost_fragment_is_told_not_guessed(tmp_path):
    frames, request_fragments = exchange(False)
    del frames[1]  # one fragment of the request lost
    capture = tmp_path / "lost.pcap"
    wrpcap(str(capture), frames)
    lines = [json.loads(line) for line in run("pcap", "dump", "--port", str(PORT), "--json",
                                                str(capture)).splitlines()]
    assert "CREDIT_REQUEST" not in [m.get("type") for m in lines]
    errors = [m for m in lines if m.get("error") == "malformed_frame"]
    assert len(errors) == 1
    assert errors[0]["frame"] == 1
    assert "incomplete at the end of the capture" in errors[0]["message"]
    assert request_fragments > 2
