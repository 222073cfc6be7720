"""RDCC for Scapy: the common header, the ten message types and the opaque data transport
header (docs/data-transport.md) as Scapy packets.

    from scapy.all import IP, UDP, send
    from rdcc.scapy import *
    bind_rdcc_port(50000)            # the spec forbids a default port: name yours
    send(IP(dst="127.0.0.1") / UDP(sport=40000, dport=50000) /
         RDCC(association_id=0x5A17C0DE, epoch=3, sequence_number=42, flags="FINAL") /
         CreditGrant(message_id=0x101, grant_limit=262144, pacing_rate=100000))

The fields are not written here: each type's fields, their widths and registries come from the
codec's own table (rdcc.TABLES, the C API's rdcc_tables_json), so the layer and the codec read
the same wire format. to_dict(packet) gives a dissected message in the form of rdcc.decode().
Flags are named per message type (show() prints "POOL+FINAL"); a field's registry value by its
name ("UNKNOWN_ASSOCIATION").
"""

from scapy.fields import (BitField, ByteEnumField, ByteField, FlagsField, IntEnumField,
                          IntField, IP6Field, IPField, LongField, MultipleTypeField,
                          ShortEnumField, ShortField, XByteField, XIntField, XLongField,
                          XShortField)
from scapy.layers.inet import UDP
from scapy.packet import Packet, bind_layers

import rdcc

__all__ = ["RDCC", "RdccData", "bind_rdcc_port", "bind_data_port", "to_dict", "MESSAGE_CLASSES"]

_FLAG_BITS = {}
for _bits in rdcc.MESSAGE_FLAGS.values():
    for _bit, _name in _bits.items():
        if _FLAG_BITS.setdefault(_name, _bit) != _bit:
            raise ImportError(f"rdcc.scapy: flag {_name} has two bits")


class _MessageFlagsField(XShortField):
    """The header's Flags: named per message type ("RDCC Message Flags"); set as a number, a
    name, "POOL+FINAL" or a list of names (each flag name belongs to one bit in every type)."""

    def any2i(self, pkt, x):
        if isinstance(x, str):
            x = [n for n in x.replace("|", "+").split("+") if n]
        if isinstance(x, (list, tuple)):
            value = 0
            for name in x:
                if name.upper() not in _FLAG_BITS:
                    raise ValueError(f"RDCC flag {name!r} is not one of {sorted(_FLAG_BITS)}")
                value |= _FLAG_BITS[name.upper()]
            return value
        return super().any2i(pkt, x)

    def i2repr(self, pkt, x):
        if x is None:
            return "None"
        names = rdcc.MESSAGE_FLAGS.get(rdcc.MESSAGE_TYPES.get(getattr(pkt, "type", 0)), {})
        parts = [names[b] for b in sorted(names) if x & b]
        undefined = x & ~sum(names)
        if undefined:
            parts.append(f"0x{undefined:04x}")
        return f"0x{x:04x} ({'+'.join(parts) if parts else 'none'})"


def _field(spec):
    """A Scapy field for one entry of the codec's table."""
    name, bits, unit = spec["name"], spec["bits"], spec["unit"]
    registry = spec["registry"]
    if unit == "address":
        return MultipleTypeField([(IP6Field(name, "::"), lambda p: p.address_family == 6)],
                                 IPField(name, "0.0.0.0"))
    if unit == "bitmask":
        names = {int(k): v for k, v in rdcc.TABLES["registries"][registry].items()}
        return FlagsField(name, 0, bits,
                          [names.get(1 << i, f"bit{i}") for i in range(bits)])
    if unit == "enum" and registry:
        names = {int(k): v for k, v in rdcc.TABLES["registries"][registry].items()}
        enum = {8: ByteEnumField, 16: ShortEnumField, 32: IntEnumField}[bits]
        default = 4 if name == "address_family" else 0
        return enum(name, default, names)
    if unit == "id":
        return {8: XByteField, 16: XShortField, 32: XIntField, 64: XLongField}[bits](name, 0)
    return {8: ByteField, 16: ShortField, 32: IntField, 64: LongField}[bits](name, 0)


def _camel(type_name):
    return "".join(part.capitalize() for part in type_name.split("_"))


class RDCC(Packet):
    """The Common Header. Length left unset is the header's and the body's size."""

    name = "RDCC"
    fields_desc = [
        BitField("version", 1, 4),
        BitField("rsv", 0, 4),
        ByteEnumField("type", 0, rdcc.MESSAGE_TYPES),
        ShortField("length", None),
        XIntField("association_id", 0),
        ShortField("epoch", 0),
        _MessageFlagsField("flags", 0),
        IntField("sequence_number", 0),
    ]

    @classmethod
    def dispatch_hook(cls, _pkt=None, *args, **kargs):
        # A data transport NACK goes to the sender's RDCC port; it starts with the Magic "RD",
        # which no RDCC message does (their first octet holds Version 1).
        if _pkt and _pkt[:2] == b"RD":
            return RdccData
        return cls

    def post_build(self, p, pay):
        if self.length is None:
            body = len(self.payload.self_build()) if isinstance(
                self.payload, _Body) else len(pay)
            size = len(p) + body
            p = p[:2] + size.to_bytes(2, "big") + p[4:]
        return p + pay

    def mysummary(self):
        return self.sprintf("RDCC %type% assoc=%association_id% epoch=%epoch% "
                            "seq=%sequence_number%")


class _Body(Packet):
    """A message body; what follows it (octets after Length) is padding."""

    def extract_padding(self, s):
        return b"", s


MESSAGE_CLASSES = {}
"""Type value -> the Scapy class of its body (4 -> CreditGrant)."""
for _type in rdcc.TABLES["types"]:
    _class_name = "ErrorMessage" if _type["name"] == "ERROR" else _camel(_type["name"])
    _cls = type(_class_name, (_Body,), {
        "name": f"RDCC {_type['name']}",
        "fields_desc": [_field(f) for f in _type["fields"]],
        "__doc__": f"The body of {_type['name']} (type {_type['type']}).",
        "__module__": __name__,
    })
    globals()[_class_name] = _cls
    __all__.append(_class_name)
    MESSAGE_CLASSES[_type["type"]] = _cls
    bind_layers(RDCC, _cls, type=_type["type"])


class RdccData(Packet):
    """The opaque data transport's header (docs/data-transport.md), then the payload. Payload
    Length left unset is the payload's size."""

    name = "RDCC opaque data"
    fields_desc = [
        XShortField("magic", 0x5244),
        ByteField("version", 1),
        FlagsField("flags", 0, 8, ["LAST", "UNSCHEDULED", "RECOVERS", "NACK",
                                   "bit4", "bit5", "bit6", "bit7"]),
        IntField("payload_length", None),
        XLongField("message_identifier", 0),
        LongField("offset", 0),
    ]

    def post_build(self, p, pay):
        if self.payload_length is None:
            p = p[:4] + len(pay).to_bytes(4, "big") + p[8:]
        return p + pay

    def extract_padding(self, s):
        # Octets after the payload are not part of the packet.
        n = self.payload_length or 0
        return s[:n], s[n:]

    def mysummary(self):
        return self.sprintf("RDCC data id=%message_identifier% offset=%offset% "
                            "len=%payload_length% %flags%")


def _bind_both(cls, port):
    bind_layers(UDP, cls, dport=port)
    bind_layers(UDP, cls, sport=port)


def bind_rdcc_port(port):
    """Dissect UDP to or from `port` as RDCC (the spec gives no default port: the domain
    configures one)."""
    _bind_both(RDCC, int(port))


def bind_data_port(port):
    """Dissect UDP to or from `port` as the opaque data transport (no default either)."""
    _bind_both(RdccData, int(port))


def to_dict(packet):
    """A dissected or built RDCC message (the RDCC layer of `packet`) as rdcc.decode() gives
    it: the header's fields, then the body's, raw values, addresses as text. Built with
    raw(): fields left unset (Length) take the values they are sent with."""
    header = packet[RDCC] if RDCC in packet else packet
    header = header.__class__(bytes(header))
    out = {"type": rdcc.MESSAGE_TYPES.get(header.type, header.type)}
    for f in RDCC.fields_desc:
        if f.name != "type":
            out[f.name] = int(header.getfieldval(f.name))
    body = header.payload
    if not isinstance(body, _Body):
        raise ValueError(f"no RDCC message body after the header (type {header.type})")
    for f in body.fields_desc:
        value = body.getfieldval(f.name)
        out[f.name] = value if isinstance(value, str) else int(value)
    return out
