"""The Scapy layer against the codec, so that the two never disagree: every boundary vector
dissected by the layer equals rdcc.decode and builds back to the same octets; every message
type built by the layer decodes with rdcc.decode to the values it was built with; rdpcap of the
golden captures dissects every RDCC frame (and every opaque data packet) as the codec does."""

import glob
import os

import pytest
from scapy.all import IP, UDP, Padding, Raw, raw, rdpcap

import rdcc
import rdcc.scapy as layer
from conftest import SOURCE_DIR, VECTORS

PORT, DATA_PORT = 50000, 50001  # the golden captures' ports (pcaps/INDEX.md)
layer.bind_rdcc_port(PORT)
layer.bind_data_port(DATA_PORT)


def test_star_import_gives_the_ten_types_the_header_and_the_data_header():
    names = {}
    exec("from rdcc.scapy import *", names)  # pylint: disable=exec-used
    for cls in ("RDCC", "RdccData", "AssocRequest", "AssocAccept", "CreditRequest",
                "CreditGrant", "SenderStatus", "CongestionReport", "MsgDone", "Cancel",
                "CreditReturn", "ErrorMessage", "bind_rdcc_port", "bind_data_port", "to_dict"):
        assert cls in names, cls
    assert sorted(layer.MESSAGE_CLASSES) == list(range(1, 11))
    for value, cls in layer.MESSAGE_CLASSES.items():
        assert cls().name == f"RDCC {rdcc.MESSAGE_TYPES[value]}"
        assert cls.__module__ == "rdcc.scapy"


def test_vector_dissected_by_the_layer_equals_rdcc_decode(vector):
    name, wire = vector
    packet = layer.RDCC(wire)
    assert layer.to_dict(packet) == rdcc.decode(wire), name
    assert raw(packet) == wire, name
    assert not packet.haslayer(Padding) and not packet.haslayer(Raw), name


def test_vector_under_udp_on_the_bound_port_equals_rdcc_decode(vector):
    name, wire = vector
    packet = IP(raw(IP(src="10.0.0.2", dst="10.0.0.1") / UDP(sport=40000, dport=PORT) / wire))
    assert packet.haslayer(layer.RDCC), name
    assert layer.to_dict(packet) == rdcc.decode(wire), name


def built_messages():
    """One message of each type with every field set to a value of its own, by name."""
    out = []
    for t in rdcc.TABLES["types"]:
        fields = {}
        for i, f in enumerate(t["fields"]):
            if f["unit"] == "address":
                fields[f["name"]] = f"2001:db8::{i}"
            elif f["name"] == "address_family":
                fields[f["name"]] = 6
            else:
                fields[f["name"]] = (i * 0x1111 + 7) % (1 << f["bits"])
        out.append((t["type"], fields))
    return out


@pytest.mark.parametrize("type_value, fields", built_messages(),
                         ids=[rdcc.MESSAGE_TYPES[t] for t, _ in built_messages()])
def test_packet_built_by_the_layer_decodes_with_rdcc_decode(type_value, fields):
    header = {"association_id": 0x5A17C0DE, "epoch": 3, "sequence_number": 42, "flags": 0x8001,
              "rsv": 5}
    packet = layer.RDCC(**header) / layer.MESSAGE_CLASSES[type_value](**fields)
    decoded = rdcc.decode(raw(packet))
    assert decoded["type"] == rdcc.MESSAGE_TYPES[type_value]
    assert decoded["length"] == len(raw(packet))
    for key, value in {**header, **fields}.items():
        assert decoded[key] == value, key
    assert rdcc.encode(decoded) == raw(packet)
    assert layer.to_dict(packet) == decoded


def test_flags_by_name_and_show_names_fields_and_flags():
    grant = layer.RDCC(flags="POOL+FINAL") / layer.CreditGrant(pacing_rate=1)
    assert rdcc.decode(raw(grant))["flags"] == 3
    text = layer.RDCC(raw(grant)).show(dump=True)
    assert "flags     = 0x0003 (POOL+FINAL)" in text
    for field in ("message_id", "grant_limit", "pacing_rate", "lifetime", "association_id",
                  "sequence_number"):
        assert field in text
    accept = layer.RDCC(flags=["PARAMETER_UPDATE"]) / layer.AssocAccept(capabilities=7)
    text = layer.RDCC(raw(accept)).show(dump=True)
    assert "(PARAMETER_UPDATE)" in text and "POOL+STATUS+CRN" in text
    undefined = layer.RDCC(raw(layer.RDCC(flags=0x8004) / layer.CreditGrant()))
    assert "0x8004 (0x8004)" in undefined.show(dump=True)
    error = layer.RDCC(raw(layer.RDCC() / layer.ErrorMessage(reason=2)))
    assert "UNKNOWN_ASSOCIATION" in error.show(dump=True)
    with pytest.raises(ValueError):
        layer.RDCC(flags="NOT_A_FLAG")


def test_data_header_builds_and_dissects():
    data = layer.RdccData(flags="LAST", message_identifier=0x101, offset=2048) / (b"x" * 100)
    wire = raw(data)
    assert len(wire) == 24 + 100 and wire[:4] == b"RD\x01\x01"
    back = layer.RdccData(wire + b"trailing")
    assert (back.payload_length, back.message_identifier, back.offset) == (100, 0x101, 2048)
    assert back[Raw].load == b"x" * 100 and back[Padding].load == b"trailing"
    # A NACK goes to the sender's RDCC port: the RDCC layer hands it to the data header.
    nack = raw(layer.RdccData(flags="NACK") / (0).to_bytes(8, "big") / (10).to_bytes(8, "big"))
    packet = IP(raw(IP() / UDP(sport=DATA_PORT, dport=PORT) / nack))
    assert packet.haslayer(layer.RdccData) and packet[layer.RdccData].flags.NACK


def rdcc_payloads(path):
    """(frame number, the UDP payload, the dissected packet) of each UDP datagram to or from
    the RDCC port."""
    for number, packet in enumerate(rdpcap(path), 1):
        if UDP in packet and PORT in (packet[UDP].sport, packet[UDP].dport):
            yield number, bytes(packet[UDP].payload), packet


CAPTURES = sorted(glob.glob(os.path.join(SOURCE_DIR, "pcaps", "*.pcap")))


@pytest.mark.parametrize("path", CAPTURES, ids=[os.path.basename(p) for p in CAPTURES])
def test_golden_capture_every_rdcc_frame_dissects_as_the_codec_decodes_it(path):
    messages = rejected = data_packets = 0
    for number, payload, packet in rdcc_payloads(path):
        where = f"{os.path.basename(path)} frame {number}"
        if payload[:2] == b"RD":
            assert packet.haslayer(layer.RdccData), where
            continue
        try:
            expected = rdcc.decode(payload)
        except rdcc.DecodeError:
            rejected += 1  # malformed.pcap: the layer takes it apart as far as it goes
            continue
        assert packet.haslayer(layer.RDCC), where
        assert layer.to_dict(packet) == expected, where
        messages += 1
    for packet in rdpcap(path):
        if UDP in packet and DATA_PORT in (packet[UDP].sport, packet[UDP].dport):
            data = packet[layer.RdccData]
            assert data.magic == 0x5244 and data.version == 1
            assert len(bytes(data.payload)) <= data.payload_length  # captures cut at 128 octets
            data_packets += 1
    name = os.path.basename(path)
    if name == "ordinary_udp.pcap":
        assert messages == 0
    else:
        assert messages > 0, name
    if name.startswith("sim_") and "rocev2" not in name:
        assert data_packets > 0, name
    if name == "malformed.pcap":
        assert rejected > 0
