"""rdcc.decode / rdcc.encode over the codec's C API: every boundary vector round-trips byte for
byte and decodes as `rdcc decode --json` prints it; the spec's appendix encodings decode to the
values its prose gives; bad input raises with the code, the field and its offset."""

import json
import os
import re
import subprocess

import pytest

import rdcc
from conftest import RDCC_TOOL, SOURCE_DIR, VECTORS, appendix_datagrams


def test_vector_roundtrips_byte_for_byte(vector):
    name, wire = vector
    message = rdcc.decode(wire)
    assert rdcc.encode(message) == wire, name
    # and through JSON text, as a user would keep it
    assert rdcc.encode(json.loads(json.dumps(message))) == wire, name


def test_every_vector_decodes_as_rdcc_decode_json_prints_it(tmp_path):
    hex_file = tmp_path / "vectors.hex"
    hex_file.write_text("".join(wire.hex() + "\n" for _, wire in VECTORS))
    out = subprocess.run([RDCC_TOOL, "decode", "--json", "--input", str(hex_file)],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    assert len(out) == len(VECTORS)
    for (name, wire), line in zip(VECTORS, out):
        expected = json.loads(line)
        got = rdcc.decode(wire)
        assert got == expected, name
        assert list(got) == list(expected), f"{name}: the keys' order differs"


def test_every_vector_line_is_rdcc_decode_line():
    for name, wire in VECTORS:
        line = subprocess.run([RDCC_TOOL, "decode", "--line", wire.hex()], check=True,
                              capture_output=True, text=True).stdout.strip()
        assert rdcc.format_line(wire) == line, name


def test_appendix_credit_request_has_the_specs_values():
    request = rdcc.decode(appendix_datagrams()[0])
    # "Association ID 0x5A17C0DE, Epoch 3, Sequence Number 7, Class 2, Weight 4, Service Hint
    # 1, RoCEv2 binding with destination queue pair 0x000123, first message sequence number 5,
    # and 16 RDMA messages of 256 KiB each", message 0x101 of 4 MiB.
    assert request == {
        "type": "CREDIT_REQUEST", "version": 1, "rsv": 0, "length": 56,
        "association_id": 0x5A17C0DE, "epoch": 3, "flags": 0, "sequence_number": 7,
        "message_id": 0x101, "message_length": 4 * 1024 * 1024, "unscheduled_sent": 0,
        "traffic_class": 2, "weight": 4, "service_hint": 1, "binding_kind": 1, "deadline": 0,
        "binding_value": (0x000123 << 40) | (5 << 16) | 16,
    }
    assert rdcc.SERVICE_HINTS[request["service_hint"]] == "LATENCY_SENSITIVE"
    assert rdcc.BINDING_KINDS[request["binding_kind"]] == "ROCEV2"


def test_appendix_credit_grant_has_the_specs_values():
    grant = rdcc.decode(appendix_datagrams()[1])
    # "Sequence Number 42, Grant Limit 262144, Pacing Rate 100000 Mbit/s, Lifetime 2000"
    assert grant == {
        "type": "CREDIT_GRANT", "version": 1, "rsv": 0, "length": 40,
        "association_id": 0x5A17C0DE, "epoch": 3, "flags": 0, "sequence_number": 42,
        "message_id": 0x101, "grant_limit": 262144, "pacing_rate": 100000, "lifetime": 2000,
    }


def test_appendix_file_holds_the_specs_encodings():
    spec = os.environ.get("RDCC_SPEC_FILE") or os.path.join(SOURCE_DIR, "..", "shared", "spec",
                                                            "rdcc-spec.txt")
    if not os.path.exists(spec):
        pytest.skip(f"no spec at {spec} (set RDCC_SPEC_FILE)")
    with open(spec, encoding="utf-8") as f:
        text = re.sub(r"\s+", " ", f.read())
    for datagram in appendix_datagrams():
        assert " ".join(f"{b:02x}" for b in datagram) in text


def test_encode_reads_names_and_defaults():
    wire = rdcc.encode({"type": "CREDIT_GRANT", "flags": ["POOL", "FINAL"], "message_id": "0x0",
                        "grant_limit": 1048576, "pacing_rate": 25000})
    m = rdcc.decode(wire)
    assert (m["flags"], m["length"], m["version"], m["lifetime"]) == (3, 40, 1, 0)
    error = rdcc.decode(rdcc.encode({"type": "ERROR", "reason": "UNKNOWN_ASSOCIATION"}))
    assert error["reason"] == 2 and rdcc.REASON_CODES[2] == "UNKNOWN_ASSOCIATION"


def test_registries_are_the_specs():
    assert rdcc.MESSAGE_TYPES == {
        1: "ASSOC_REQUEST", 2: "ASSOC_ACCEPT", 3: "CREDIT_REQUEST", 4: "CREDIT_GRANT",
        5: "SENDER_STATUS", 6: "CONGESTION_REPORT", 7: "MSG_DONE", 8: "CANCEL",
        9: "CREDIT_RETURN", 10: "ERROR"}
    assert rdcc.REASON_CODES == {
        0: "NO_ERROR", 1: "ASSOC_REFUSED", 2: "UNKNOWN_ASSOCIATION", 3: "BUDGET_EXHAUSTED",
        4: "UNSUPPORTED_TYPE", 5: "MESSAGE_TOO_LARGE", 6: "APPLICATION_ABORT",
        7: "UNSUPPORTED_BINDING"}
    assert rdcc.SERVICE_HINTS == {0: "NONE", 1: "LATENCY_SENSITIVE", 2: "THROUGHPUT_ORIENTED"}
    assert rdcc.BINDING_KINDS == {0: "RESERVED", 1: "ROCEV2", 2: "OPAQUE"}
    assert rdcc.CAPABILITIES == {1: "POOL", 2: "STATUS", 4: "CRN"}
    assert rdcc.MESSAGE_FLAGS["ASSOC_ACCEPT"] == {1: "PARAMETER_UPDATE"}
    assert rdcc.MESSAGE_FLAGS["ASSOC_REQUEST"] == {2: "UPDATE_ACKNOWLEDGMENT"}
    assert rdcc.MESSAGE_FLAGS["CREDIT_GRANT"] == {1: "POOL", 2: "FINAL"}
    assert rdcc.MESSAGE_FLAGS["MSG_DONE"] == {}
    assert rdcc.REPORT_DIRECTIONS == {1: "TO_RECEIVER", 2: "TO_SENDER"}
    assert rdcc.ADDRESS_FAMILIES == {4: "IPV4", 6: "IPV6"}


GRANT = appendix_datagrams()[1]


@pytest.mark.parametrize("data, code, field, offset", [
    (b"", "truncated", "version", 0),
    (bytes([0x20]) + GRANT[1:], "bad_version", "version", 0),
    (GRANT[:1] + bytes([0x0B]) + GRANT[2:], "unknown_type", "type", 1),
    (GRANT[:2] + bytes([0, 28]) + GRANT[4:], "length_too_small", "length", 2),
    (GRANT[:39], "length_beyond_datagram", "length", 2),
])
def test_bad_datagram_raises_with_code_field_and_offset(data, code, field, offset):
    with pytest.raises(rdcc.DecodeError) as e:
        rdcc.decode(data)
    assert (e.value.code, e.value.field, e.value.offset) == (code, field, offset)
    assert f"field {field}" in str(e.value)


def test_bad_address_family_names_its_field_and_offset():
    report = dict(rdcc.decode(rdcc.encode({"type": "CONGESTION_REPORT"})))
    wire = bytearray(rdcc.encode(report))
    offset = rdcc.field_offset("CONGESTION_REPORT", "address_family")
    wire[offset] = 5
    with pytest.raises(rdcc.DecodeError) as e:
        rdcc.decode(bytes(wire))
    assert (e.value.code, e.value.field, e.value.offset) == (
        "bad_address_family", "address_family", offset)


def test_every_prefix_of_every_vector_raises_a_decode_error_with_a_field():
    for name, wire in VECTORS:
        for n in range(len(wire)):
            with pytest.raises(rdcc.DecodeError) as e:
                rdcc.decode(wire[:n])
            assert e.value.field in ("version", "type", "length"), (name, n)
            assert e.value.offset == rdcc.field_offset(None, e.value.field), (name, n)


def test_octets_after_length_are_ignored_as_the_codec_ignores_them():
    assert rdcc.decode(GRANT + b"\x00\x01") == rdcc.decode(GRANT)


@pytest.mark.parametrize("message, field", [
    ({"type": "CREDIT_REQUEST", "traffic_class": 256}, "traffic_class"),
    ({"type": "ERROR", "reason": "NO_SUCH_REASON"}, "reason"),
    ({"type": "CREDIT_GRANT", "flags": ["NOT_A_FLAG"]}, "flags"),
    ({"type": "NOT_A_TYPE"}, "type"),
    ({"message_id": 1}, "type"),
    ({"type": "CONGESTION_REPORT", "address_family": 6, "source_address": "10.0.0.1"},
     "source_address"),
])
def test_bad_message_raises_with_the_key(message, field):
    with pytest.raises(rdcc.EncodeError) as e:
        rdcc.encode(message)
    assert (e.value.code, e.value.field) == ("bad_json", field)
    type_name = message.get("type") if message.get("type") in rdcc.MESSAGE_TYPES.values() else None
    if type_name:
        assert e.value.offset == rdcc.field_offset(type_name, field,
                                                   message.get("address_family", 4))


def test_version_above_four_bits_raises_with_the_field():
    with pytest.raises(rdcc.EncodeError) as e:
        rdcc.encode({"type": "MSG_DONE", "version": 16})
    assert e.value.field == "version"
    assert e.value.code in ("bad_json", "field_out_of_range")


@pytest.mark.parametrize("value", [[1, 2], b"\x00", object()])
def test_not_a_message_raises(value):
    with pytest.raises(rdcc.EncodeError) as e:
        rdcc.encode(value if isinstance(value, list) else {"type": "MSG_DONE", "message_id": value})
    assert e.value.code == "bad_json"


def test_decode_takes_bytes_not_text():
    with pytest.raises(TypeError):
        rdcc.decode(GRANT.hex())
    assert rdcc.decode(bytearray(GRANT)) == rdcc.decode(memoryview(GRANT))


def test_version_is_the_librarys():
    out = subprocess.run([RDCC_TOOL, "--version"], check=True, capture_output=True, text=True)
    assert rdcc.version() in out.stdout


def test_the_packages_examples_run():
    import doctest  # pylint: disable=import-outside-toplevel
    failures, tried = doctest.testmod(rdcc)
    assert tried > 0 and failures == 0
