"""RDCC (Receiver-Driven Credit Control) messages from Python, over the toolkit's codec.

    >>> import rdcc
    >>> m = rdcc.decode(bytes.fromhex("10040028 5a17c0de 00030000 0000002a 00000000 00000101"
    ...                                 "00000000 00040000 000186a0 000007d0"))
    >>> m["type"], m["grant_limit"], m["pacing_rate"]
    ('CREDIT_GRANT', 262144, 100000)
    >>> rdcc.encode({"type": "MSG_DONE", "message_id": 5, "octets_received": 2048}).hex()
    '1007002000000000000000000000000000000000000000050000000000000800'

There is one codec: this package calls the C API of the C++ codec (rdcc/codec.h) through
ctypes. decode() gives the message as `rdcc decode --json` prints it (the spec's field names,
raw values: a Class of 9 stays 9); encode() reads what `rdcc encode` reads (registry names,
lists of flag names, "0x..." numbers; keys left out take their defaults). A datagram the codec
rejects raises DecodeError with the code, the field and its octet offset.

The shared library is found through the environment variable RDCC_LIBRARY, else beside this
file (where `cmake --install` puts it).
"""

import ctypes
import json
import os

__all__ = [
    "ADDRESS_FAMILIES",
    "BINDING_KINDS",
    "CAPABILITIES",
    "DecodeError",
    "EncodeError",
    "Error",
    "MESSAGE_FLAGS",
    "MESSAGE_TYPES",
    "REASON_CODES",
    "REPORT_DIRECTIONS",
    "SERVICE_HINTS",
    "TABLES",
    "decode",
    "encode",
    "field_offset",
    "format_line",
    "version",
]


class Error(Exception):
    """A datagram or a message the codec rejects.

    code: the codec's name for it ("length_too_small", "bad_json", ...; `rdcc decode --json`'s
    "error"); field: the field or JSON key ("" for the whole input); offset: the field's octet
    offset in the datagram (None where the input has no such place); message: the codec's text.
    """

    def __init__(self, code, field, offset, message):
        super().__init__(message)
        self.code = code
        self.field = field
        self.offset = offset
        self.message = message


class DecodeError(Error):
    """decode() of a datagram that is not an RDCC message."""


class EncodeError(Error):
    """encode() of a message that cannot be encoded."""


class _CError(ctypes.Structure):
    # struct rdcc_error (rdcc/codec.h); its size is checked against the library's at load.
    _fields_ = [
        ("code", ctypes.c_int),
        ("offset", ctypes.c_size_t),
        ("field", ctypes.c_char * 32),
        ("actual", ctypes.c_uint32),
        ("expected", ctypes.c_uint32),
        ("needed", ctypes.c_size_t),
        ("message", ctypes.c_char * 160),
    ]


def _load():
    path = os.environ.get("RDCC_LIBRARY") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "_librdcc.so")
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"rdcc: cannot load the codec library {path}: {e}") from e
    c_bytes = ctypes.c_char_p
    lib.rdcc_decode.argtypes = [c_bytes, ctypes.c_size_t, ctypes.c_void_p,
                                ctypes.POINTER(_CError)]
    lib.rdcc_decode.restype = ctypes.c_int
    lib.rdcc_encode.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_CError)]
    lib.rdcc_encode.restype = ctypes.c_int
    for name in ("rdcc_to_json", "rdcc_format_line"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        getattr(lib, name).restype = ctypes.c_size_t
    lib.rdcc_from_json.argtypes = [c_bytes, ctypes.c_size_t, ctypes.c_void_p,
                                   ctypes.POINTER(_CError)]
    lib.rdcc_from_json.restype = ctypes.c_int
    lib.rdcc_tables_json.restype = ctypes.c_char_p
    lib.rdcc_version.restype = ctypes.c_char_p
    return lib


_lib = _load()

TABLES = json.loads(_lib.rdcc_tables_json().decode())
"""The codec's tables (rdcc_tables_json): registries, flags, error codes, each type's fields."""

if TABLES["error_size"] != ctypes.sizeof(_CError):
    raise ImportError("rdcc: struct rdcc_error of the library is "
                      f"{TABLES['error_size']} octets, this package's {ctypes.sizeof(_CError)}")


def _registry(name):
    return {int(k): v for k, v in TABLES["registries"][name].items()}


MESSAGE_TYPES = _registry("message_types")
"""RDCC Message Types: value -> name ({4: "CREDIT_GRANT", ...})."""
REASON_CODES = _registry("reason_codes")
SERVICE_HINTS = _registry("service_hints")
BINDING_KINDS = _registry("binding_kinds")
CAPABILITIES = _registry("capabilities")
"""RDCC Capability Bits: bit -> name."""
REPORT_DIRECTIONS = _registry("report_directions")
ADDRESS_FAMILIES = _registry("address_families")
MESSAGE_FLAGS = {t: {int(k): v for k, v in bits.items()}
                 for t, bits in TABLES["message_flags"].items()}
"""RDCC Message Flags per type name: bit -> name ({"CREDIT_GRANT": {1: "POOL", 2: "FINAL"}})."""
_ERROR_CODES = {int(k): v for k, v in TABLES["error_codes"].items()}
_MAX_SIZE = max(t["max_size"] for t in TABLES["types"])


def _message_buffer():
    # struct rdcc_message as an opaque, 8-aligned buffer of the library's size.
    return (ctypes.c_uint64 * ((TABLES["message_size"] + 7) // 8))()


def _text(c_chars):
    return c_chars.decode("utf-8", "replace")


def _to_bytes(data):
    if isinstance(data, str):
        raise TypeError("rdcc.decode takes bytes (bytes.fromhex(text) for hex)")
    return bytes(data)


def field_offset(type_name, field, address_family=4):
    """The octet offset of `field` in a message of type `type_name` (a header field in any);
    None for a name the type does not have."""
    bit = 0
    for f in TABLES["header"]:
        if f["name"] == field:
            return bit // 8
        bit += f["bits"]
    for t in TABLES["types"]:
        if t["name"] != type_name:
            continue
        for f in t["fields"]:
            if f["name"] == field:
                return bit // 8
            bit += f["bits"] or (128 if address_family == 6 else 32)
    return None


def _decoded(data):
    # struct rdcc_message of `data`, or DecodeError.
    data = _to_bytes(data)
    message = _message_buffer()
    error = _CError()
    code = _lib.rdcc_decode(data, len(data), message, ctypes.byref(error))
    if code != 0:
        raise DecodeError(_ERROR_CODES.get(code, str(code)), _text(error.field), error.offset,
                          _text(error.message))
    return message


def _c_text(function, message):
    # The text a size_t function(message, out, capacity) writes, as snprintf does.
    size = function(message, None, 0)
    text = ctypes.create_string_buffer(size + 1)
    function(message, text, size + 1)
    return text.value.decode()


def decode(data):
    """The RDCC message in `data` (bytes: one UDP payload) as a dict, as `rdcc decode --json`
    gives it. Octets after the message's Length are ignored, as the codec ignores them.
    Raises DecodeError (code, field, offset) for a datagram the codec rejects."""
    return json.loads(_c_text(_lib.rdcc_to_json, _decoded(data)))


def _address_family(message):
    af = message.get("address_family", 4)
    return 6 if af in (6, "6", "IPV6", "ipv6") else 4


def encode(message):
    """The datagram of `message`, a dict as decode() gives it or as `rdcc encode` reads it
    ({"type": "CREDIT_GRANT", "message_id": 257, "flags": ["FINAL"], ...}). Raises
    EncodeError with the offending key as `field` (and its offset in the datagram)."""
    if not isinstance(message, dict):
        raise EncodeError("bad_json", "", None,
                          f"a message is a dict, not {type(message).__name__}")
    try:
        text = json.dumps(message).encode()
    except (TypeError, ValueError) as e:
        raise EncodeError("bad_json", "", None, f"not JSON: {e}") from e
    c_message = _message_buffer()
    error = _CError()
    code = _lib.rdcc_from_json(text, len(text), c_message, ctypes.byref(error))
    if code == 0:
        out = ctypes.create_string_buffer(_MAX_SIZE)
        written = ctypes.c_size_t()
        code = _lib.rdcc_encode(c_message, out, len(out), ctypes.byref(written),
                                ctypes.byref(error))
        if code == 0:
            return out.raw[:written.value]
    field = _text(error.field)
    type_name = message.get("type")
    if isinstance(type_name, int):
        type_name = MESSAGE_TYPES.get(type_name)
    offset = field_offset(type_name, field, _address_family(message)) if field else None
    raise EncodeError(_ERROR_CODES.get(code, str(code)), field, offset, _text(error.message))


def format_line(data):
    """The one-line text of the message in `data`, as `rdcc decode --line` prints it."""
    return _c_text(_lib.rdcc_format_line, _decoded(data))


def version():
    """The version of the codec library loaded ("0.1.0")."""
    return _lib.rdcc_version().decode()
