/* The RDCC codec for C: decode a datagram into a plain struct (or an error naming the field and
 * its octet offset), encode a struct into a buffer, and the one-line text form. A thin layer
 * over the C++ codec (rdcc/codec/codec.hpp): the same checks, the same raw field values (a
 * decoded Class 9 stays 9); nothing is thrown across it. Link with rdcc::codec (CMake) or
 * `pkg-config --libs rdcc-codec`. */
#ifndef RDCC_CODEC_H
#define RDCC_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "rdcc/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Message types ("RDCC Message Types"). */
enum rdcc_type {
  RDCC_ASSOC_REQUEST = 1,
  RDCC_ASSOC_ACCEPT = 2,
  RDCC_CREDIT_REQUEST = 3,
  RDCC_CREDIT_GRANT = 4,
  RDCC_SENDER_STATUS = 5,
  RDCC_CONGESTION_REPORT = 6,
  RDCC_MSG_DONE = 7,
  RDCC_CANCEL = 8,
  RDCC_CREDIT_RETURN = 9,
  RDCC_ERROR = 10
};

/* "Common Header". On encode, length 0 means "the size of the type". */
struct rdcc_header {
  uint8_t version; /* 4 bits; 1 */
  uint8_t rsv;     /* 4 bits */
  uint16_t length;
  uint32_t association_id;
  uint16_t epoch;
  uint16_t flags;
  uint32_t sequence_number;
};

struct rdcc_assoc_request {
  uint64_t sender_nonce;
  uint32_t capabilities;
  uint32_t line_rate; /* Mbit/s */
  uint32_t reserved[4];
};
struct rdcc_assoc_accept {
  uint64_t sender_nonce;
  uint32_t capabilities;
  uint32_t unscheduled_limit; /* octets */
  uint32_t start_jitter;      /* microseconds */
  uint32_t backlog_threshold; /* octets */
  uint32_t grant_lifetime;    /* microseconds */
  uint32_t credit_unit;       /* octets */
};
struct rdcc_credit_request {
  uint64_t message_id;
  uint64_t message_length;
  uint64_t unscheduled_sent;
  uint8_t traffic_class;
  uint8_t weight;
  uint8_t service_hint;
  uint8_t binding_kind;
  uint32_t deadline; /* microseconds; 0 = none */
  uint64_t binding_value;
};
struct rdcc_credit_grant {
  uint64_t message_id;
  uint64_t grant_limit; /* cumulative octet offset, exclusive */
  uint32_t pacing_rate; /* Mbit/s */
  uint32_t lifetime;    /* microseconds; 0 = the association's default */
};
struct rdcc_sender_status {
  uint64_t unused_credit;
  uint8_t congestion_level;
  uint8_t service_hint;
  uint16_t reserved;
  uint32_t suggested_rate; /* Mbit/s */
};
struct rdcc_congestion_report {
  uint32_t reporter_id;
  uint32_t queue_depth;
  uint32_t queue_threshold;
  uint8_t congestion_degree;
  uint8_t direction;
  uint8_t address_family; /* 4: the first 4 octets of each address; 6: all 16 */
  uint8_t protocol;
  uint16_t source_port;
  uint16_t destination_port;
  uint32_t suggested_rate;
  uint8_t source_address[16];
  uint8_t destination_address[16];
};
struct rdcc_msg_done {
  uint64_t message_id;
  uint64_t octets_received;
};
struct rdcc_cancel {
  uint64_t message_id;
  uint16_t reason;
  uint16_t reserved;
};
struct rdcc_credit_return {
  uint64_t message_id;
  uint64_t new_limit;
};
struct rdcc_error_message {
  uint16_t reason;
  uint16_t reserved;
  uint64_t message_id;
};

/* One message: `type` says which member of `body` holds it. */
struct rdcc_message {
  uint8_t type; /* enum rdcc_type */
  struct rdcc_header header;
  union {
    struct rdcc_assoc_request assoc_request;
    struct rdcc_assoc_accept assoc_accept;
    struct rdcc_credit_request credit_request;
    struct rdcc_credit_grant credit_grant;
    struct rdcc_sender_status sender_status;
    struct rdcc_congestion_report congestion_report;
    struct rdcc_msg_done msg_done;
    struct rdcc_cancel cancel;
    struct rdcc_credit_return credit_return;
    struct rdcc_error_message error;
  } body;
};

/* What went wrong, where. `code` is one of RDCC_E_*; `field` and `message` are NUL-terminated
 * (message: "length 20 is smaller than 56, the size of CREDIT_REQUEST (field length, offset 2)").
 */
enum rdcc_error_code {
  RDCC_OK = 0,
  RDCC_E_TRUNCATED = 1,              /* decode: the datagram ends before Version, Type or Length */
  RDCC_E_BAD_VERSION = 2,            /* decode: Version is not 1 */
  RDCC_E_UNKNOWN_TYPE = 3,           /* decode: Type is not a message type; encode: `type` */
  RDCC_E_LENGTH_TOO_SMALL = 4,       /* decode: Length below the size of the Type */
  RDCC_E_LENGTH_BEYOND_DATAGRAM = 5, /* decode: Length beyond the datagram */
  RDCC_E_BAD_ADDRESS_FAMILY = 6,     /* CONGESTION_REPORT with an AF other than 4 or 6 */
  RDCC_E_BUFFER_TOO_SMALL = 7,       /* encode: `needed` octets do not fit */
  RDCC_E_FIELD_OUT_OF_RANGE = 8,     /* encode: Version or Rsv above 15 */
  RDCC_E_INVALID_ARGUMENT = 9,       /* a NULL pointer where one is required */
  RDCC_E_BAD_JSON = 10               /* rdcc_from_json: not JSON, or a key's value (`field`) */
};
struct rdcc_error {
  int code;
  size_t offset;   /* decode: the octet offset of the field */
  char field[32];  /* the field's name, e.g. "length" */
  uint32_t actual; /* decode: the offending value */
  uint32_t expected;
  size_t needed; /* encode, RDCC_E_BUFFER_TOO_SMALL: octets needed */
  char message[160];
};

/* Decodes `size` octets at `data` into `*out`. Returns RDCC_OK, or an error code with the
 * details in `*error` (which may be NULL). */
int rdcc_decode(const uint8_t* data, size_t size, struct rdcc_message* out,
                struct rdcc_error* error);

/* Encodes `*message` into `out` (at most `capacity` octets); `*written` gets the octets
 * written. Returns RDCC_OK or an error code (details in `*error`, which may be NULL). */
int rdcc_encode(const struct rdcc_message* message, uint8_t* out, size_t capacity, size_t* written,
                struct rdcc_error* error);

/* The one-line text form, as `rdcc decode --line` prints it, NUL-terminated and cut to
 * `capacity`; returns the length of the whole line (as snprintf does), or 0 for an unknown
 * type. */
size_t rdcc_format_line(const struct rdcc_message* message, char* out, size_t capacity);

/* The message as JSON text, exactly as `rdcc decode --json` prints it (the codec's JSON mapping:
 * the spec's field names, raw values, addresses as text), NUL-terminated and cut to `capacity`;
 * returns the length of the whole text (as snprintf does), or 0 for an unknown type. */
size_t rdcc_to_json(const struct rdcc_message* message, char* out, size_t capacity);

/* A message from `size` octets of JSON text, as `rdcc encode` reads it (registry names, lists
 * of flag names, "0x..." numbers; keys left out take their defaults). Returns RDCC_OK, or
 * RDCC_E_BAD_JSON with the offending key in `error->field` ("" for the text as a whole). */
int rdcc_from_json(const char* text, size_t size, struct rdcc_message* out,
                   struct rdcc_error* error);

/* The codec's tables as one JSON object, for bindings in other languages: "message_size" and
 * "error_size" (sizeof the two structs, for a binding that holds them as opaque buffers),
 * "registries" (each
 * registry of the spec, value -> name), "message_flags" (per type name, bit -> name),
 * "error_codes" (RDCC_E_* -> the name `rdcc decode --json` gives it), "header" and "types"
 * (each type's fields in wire order: name, bits, unit, registry). Static storage; NULL only
 * if it could not be built (out of memory). */
const char* rdcc_tables_json(void);

/* "CREDIT_GRANT" for 4; NULL for a type that is not one. */
const char* rdcc_type_name(int type);

/* RDCC_VERSION of the library linked, e.g. "0.1.0". */
const char* rdcc_version(void);

#ifdef __cplusplus
}
#endif

#endif /* RDCC_CODEC_H */
