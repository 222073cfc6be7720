/* packet-rdcc.c
 * Routines for RDCC (Receiver-Driven Credit Control) dissection
 *
 * RDCC is a UDP control protocol with which a receiver bounds the data that many senders may
 * have in flight toward it: credit requests, cumulative per-message or pool grants, sender
 * status, on-path congestion reports (draft "Receiver-Driven Credit Control").
 *
 * The spec requests no port and forbids implementations to assume one ("Port Configuration"),
 * so this dissector registers no default port: set the rdcc.udp.port preference, use Decode
 * As, or turn on the heuristic dissector (preference rdcc.try_heuristic, off by default: it
 * looks at every UDP datagram).
 *
 * Field names are "rdcc." followed by the JSON keys of the RDCC toolkit's codec. The report's
 * addresses have one field per address family (rdcc.source_address_ipv4 and
 * rdcc.source_address_ipv6, as sFlow's agent address or BGP's NLRI prefixes do), so that a
 * filter is typed: an IPv4 filter reads AF 4 reports, an IPv6 filter never matches them. The Lua
 * dissector (dissector/lua/rdcc.lua) builds the same tree with the same names and expert info.
 *
 * Statistics: the "rdcc" tap, and the stats tree "-z rdcc,tree" (messages per type, grants,
 * credit granted per association).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdio.h>

#include <epan/conversation.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/stats_tree.h>
#include <epan/tap.h>
#include <epan/tfs.h>
#include <epan/to_str.h>
#include <wsutil/nstime.h>

#define RDCC_VERSION 1
#define RDCC_HEADER_SIZE 16
#define RDCC_REPORT_SIZE_IPV6 72
#define RDCC_AF_OFFSET 30

#define RDCC_ASSOC_REQUEST 0x01
#define RDCC_ASSOC_ACCEPT 0x02
#define RDCC_CREDIT_REQUEST 0x03
#define RDCC_CREDIT_GRANT 0x04
#define RDCC_SENDER_STATUS 0x05
#define RDCC_CONGESTION_REPORT 0x06
#define RDCC_MSG_DONE 0x07
#define RDCC_CANCEL 0x08
#define RDCC_CREDIT_RETURN 0x09
#define RDCC_ERROR 0x0A

#define RDCC_FLAG_PARAMETER_UPDATE 0x0001      /* ASSOC_ACCEPT */
#define RDCC_FLAG_UPDATE_ACKNOWLEDGMENT 0x0002 /* ASSOC_REQUEST */
#define RDCC_FLAG_POOL 0x0001                  /* CREDIT_GRANT */
#define RDCC_FLAG_FINAL 0x0002                 /* CREDIT_GRANT */

#define RDCC_CAP_POOL 0x00000001
#define RDCC_CAP_STATUS 0x00000002
#define RDCC_CAP_CRN 0x00000004

#define RDCC_REASON_UNKNOWN_ASSOCIATION 0x0002
#define RDCC_BINDING_ROCEV2 1
#define RDCC_MAX_TRAFFIC_CLASS 7

void proto_register_rdcc(void);
void proto_reg_handoff_rdcc(void);

static int proto_rdcc = -1;

static int hf_rdcc_version = -1;
static int hf_rdcc_rsv = -1;
static int hf_rdcc_type = -1;
static int hf_rdcc_length = -1;
static int hf_rdcc_association_id = -1;
static int hf_rdcc_epoch = -1;
static int hf_rdcc_flags = -1;
static int hf_rdcc_flags_parameter_update = -1;
static int hf_rdcc_flags_update_acknowledgment = -1;
static int hf_rdcc_flags_pool = -1;
static int hf_rdcc_flags_final = -1;
static int hf_rdcc_sequence_number = -1;
static int hf_rdcc_sender_nonce = -1;
static int hf_rdcc_capabilities = -1;
static int hf_rdcc_capabilities_pool = -1;
static int hf_rdcc_capabilities_status = -1;
static int hf_rdcc_capabilities_crn = -1;
static int hf_rdcc_line_rate = -1;
static int hf_rdcc_reserved1 = -1;
static int hf_rdcc_reserved2 = -1;
static int hf_rdcc_reserved3 = -1;
static int hf_rdcc_reserved4 = -1;
static int hf_rdcc_unscheduled_limit = -1;
static int hf_rdcc_start_jitter = -1;
static int hf_rdcc_backlog_threshold = -1;
static int hf_rdcc_grant_lifetime = -1;
static int hf_rdcc_credit_unit = -1;
static int hf_rdcc_message_id = -1;
static int hf_rdcc_message_length = -1;
static int hf_rdcc_unscheduled_sent = -1;
static int hf_rdcc_traffic_class = -1;
static int hf_rdcc_weight = -1;
static int hf_rdcc_service_hint = -1;
static int hf_rdcc_binding_kind = -1;
static int hf_rdcc_deadline = -1;
static int hf_rdcc_binding_value = -1;
static int hf_rdcc_binding_value_destination_qpn = -1;
static int hf_rdcc_binding_value_first_msn = -1;
static int hf_rdcc_binding_value_message_count = -1;
static int hf_rdcc_grant_limit = -1;
static int hf_rdcc_pacing_rate = -1;
static int hf_rdcc_lifetime = -1;
static int hf_rdcc_unused_credit = -1;
static int hf_rdcc_congestion_level = -1;
static int hf_rdcc_reserved = -1;
static int hf_rdcc_suggested_rate = -1;
static int hf_rdcc_reporter_id = -1;
static int hf_rdcc_queue_depth = -1;
static int hf_rdcc_queue_threshold = -1;
static int hf_rdcc_congestion_degree = -1;
static int hf_rdcc_direction = -1;
static int hf_rdcc_address_family = -1;
static int hf_rdcc_protocol = -1;
static int hf_rdcc_source_port = -1;
static int hf_rdcc_destination_port = -1;
static int hf_rdcc_source_address_ipv4 = -1;
static int hf_rdcc_destination_address_ipv4 = -1;
static int hf_rdcc_source_address_ipv6 = -1;
static int hf_rdcc_destination_address_ipv6 = -1;
static int hf_rdcc_octets_received = -1;
static int hf_rdcc_reason = -1;
static int hf_rdcc_new_limit = -1;
static int hf_rdcc_extension = -1;
static int hf_rdcc_trailing = -1;
static int hf_rdcc_request_in = -1;
static int hf_rdcc_grant_in = -1;
static int hf_rdcc_done_in = -1;
static int hf_rdcc_grant_delay = -1;
static int hf_rdcc_time_since_request = -1;

static gint ett_rdcc = -1;
static gint ett_rdcc_header = -1;
static gint ett_rdcc_flags = -1;
static gint ett_rdcc_capabilities = -1;
static gint ett_rdcc_binding_value = -1;

static expert_field ei_rdcc_truncated = EI_INIT;
static expert_field ei_rdcc_bad_version = EI_INIT;
static expert_field ei_rdcc_unknown_type = EI_INIT;
static expert_field ei_rdcc_length_too_small = EI_INIT;
static expert_field ei_rdcc_length_beyond_datagram = EI_INIT;
static expert_field ei_rdcc_bad_address_family = EI_INIT;
static expert_field ei_rdcc_reserved_nonzero = EI_INIT;
static expert_field ei_rdcc_undefined_flags = EI_INIT;
static expert_field ei_rdcc_class_above_7 = EI_INIT;
static expert_field ei_rdcc_weight_zero = EI_INIT;
static expert_field ei_rdcc_pacing_rate_zero = EI_INIT;
static expert_field ei_rdcc_pool_message_id = EI_INIT;
static expert_field ei_rdcc_message_id_zero = EI_INIT;
static expert_field ei_rdcc_final_below_length = EI_INIT;
static expert_field ei_rdcc_grant_beyond_length = EI_INIT;
static expert_field ei_rdcc_final_missing = EI_INIT;
static expert_field ei_rdcc_sequence_not_newer = EI_INIT;
static expert_field ei_rdcc_unregistered_value = EI_INIT;
static expert_field ei_rdcc_extension_octets = EI_INIT;
static expert_field ei_rdcc_trailing_octets = EI_INIT;

static dissector_handle_t rdcc_handle;
static int rdcc_tap = -1;
static gboolean rdcc_try_heuristic = FALSE;

/* What the tap passes on for each message that is dissected whole. */
typedef struct {
  guint8 type;
  guint16 flags;
  guint32 association_id;
  guint64 message_id;
  guint64 grant_limit; /* CREDIT_GRANT */
} rdcc_tap_info_t;

/* "RDCC Message Types": name and the size defined for each type. */
static const value_string rdcc_type_vals[] = {{RDCC_ASSOC_REQUEST, "ASSOC_REQUEST"},
                                              {RDCC_ASSOC_ACCEPT, "ASSOC_ACCEPT"},
                                              {RDCC_CREDIT_REQUEST, "CREDIT_REQUEST"},
                                              {RDCC_CREDIT_GRANT, "CREDIT_GRANT"},
                                              {RDCC_SENDER_STATUS, "SENDER_STATUS"},
                                              {RDCC_CONGESTION_REPORT, "CONGESTION_REPORT"},
                                              {RDCC_MSG_DONE, "MSG_DONE"},
                                              {RDCC_CANCEL, "CANCEL"},
                                              {RDCC_CREDIT_RETURN, "CREDIT_RETURN"},
                                              {RDCC_ERROR, "ERROR"},
                                              {0, NULL}};

/* Index: type. CONGESTION_REPORT: the IPv4 form (72 with AF 6). */
static const guint16 rdcc_type_size[] = {0, 48, 48, 56, 40, 32, 48, 32, 28, 32, 28};

/* "RDCC Reason Codes"; CANCEL and ERROR use the same codes. */
static const value_string rdcc_reason_vals[] = {
    {0x0000, "NO_ERROR"},          {0x0001, "ASSOC_REFUSED"},       {0x0002, "UNKNOWN_ASSOCIATION"},
    {0x0003, "BUDGET_EXHAUSTED"},  {0x0004, "UNSUPPORTED_TYPE"},    {0x0005, "MESSAGE_TOO_LARGE"},
    {0x0006, "APPLICATION_ABORT"}, {0x0007, "UNSUPPORTED_BINDING"}, {0, NULL}};

static const value_string rdcc_service_hint_vals[] = {
    {0, "NONE"}, {1, "LATENCY_SENSITIVE"}, {2, "THROUGHPUT_ORIENTED"}, {0, NULL}};

static const value_string rdcc_binding_kind_vals[] = {
    {0, "RESERVED"}, {1, "ROCEV2"}, {2, "OPAQUE"}, {0, NULL}};

static const value_string rdcc_direction_vals[] = {{1, "TO_RECEIVER"}, {2, "TO_SENDER"}, {0, NULL}};

static const value_string rdcc_address_family_vals[] = {{4, "IPV4"}, {6, "IPV6"}, {0, NULL}};

static int* const rdcc_capability_bits[] = {
    &hf_rdcc_capabilities_pool, &hf_rdcc_capabilities_status, &hf_rdcc_capabilities_crn, NULL};

static int* const rdcc_assoc_request_flags[] = {&hf_rdcc_flags_update_acknowledgment, NULL};
static int* const rdcc_assoc_accept_flags[] = {&hf_rdcc_flags_parameter_update, NULL};
static int* const rdcc_credit_grant_flags[] = {&hf_rdcc_flags_pool, &hf_rdcc_flags_final, NULL};

/* The flag bits "RDCC Message Flags" defines for a type; the rest are undefined. */
static guint16 rdcc_defined_flags(guint8 type) {
  switch (type) {
    case RDCC_ASSOC_REQUEST: return RDCC_FLAG_UPDATE_ACKNOWLEDGMENT;
    case RDCC_ASSOC_ACCEPT: return RDCC_FLAG_PARAMETER_UPDATE;
    case RDCC_CREDIT_GRANT: return RDCC_FLAG_POOL | RDCC_FLAG_FINAL;
    default: return 0;
  }
}

static int* const* rdcc_flag_fields(guint8 type) {
  switch (type) {
    case RDCC_ASSOC_REQUEST: return rdcc_assoc_request_flags;
    case RDCC_ASSOC_ACCEPT: return rdcc_assoc_accept_flags;
    case RDCC_CREDIT_GRANT: return rdcc_credit_grant_flags;
    default: return NULL;
  }
}

/* Sequence state per originator and association ("Common Header", Sequence Number). */
typedef struct {
  guint32 association_id;
  guint16 epoch;
  guint8 direction;
} rdcc_sequence_key_t;

typedef struct {
  guint32 newest;
  guint32 newest_frame;
} rdcc_sequence_state_t;

/* Request, first grant and MSG_DONE of one message, per association. */
typedef struct {
  guint32 association_id;
  guint64 message_id;
} rdcc_message_key_t;

typedef struct {
  guint32 request_frame;
  nstime_t request_time;
  guint64 message_length; /* of the latest request */
  guint32 grant_frame;
  nstime_t grant_time;
  guint32 done_frame;
} rdcc_message_state_t;

typedef struct {
  wmem_map_t* sequences;
  wmem_map_t* messages;
} rdcc_conversation_t;

/* What the first pass learned about a frame, so that every later pass shows the same. */
typedef struct {
  gboolean sequence_not_newer;
  guint32 newest;
  guint32 newest_frame;
  gboolean request_known;
  guint64 request_length;
  rdcc_message_state_t* message;
} rdcc_frame_t;

static guint rdcc_sequence_key_hash(gconstpointer k) {
  const rdcc_sequence_key_t* key = (const rdcc_sequence_key_t*)k;
  return key->association_id ^ ((guint)key->epoch << 8) ^ key->direction;
}

static gboolean rdcc_sequence_key_equal(gconstpointer a, gconstpointer b) {
  const rdcc_sequence_key_t* x = (const rdcc_sequence_key_t*)a;
  const rdcc_sequence_key_t* y = (const rdcc_sequence_key_t*)b;
  return x->association_id == y->association_id && x->epoch == y->epoch &&
         x->direction == y->direction;
}

static guint rdcc_message_key_hash(gconstpointer k) {
  const rdcc_message_key_t* key = (const rdcc_message_key_t*)k;
  return key->association_id ^ (guint)key->message_id ^ (guint)(key->message_id >> 32);
}

static gboolean rdcc_message_key_equal(gconstpointer a, gconstpointer b) {
  const rdcc_message_key_t* x = (const rdcc_message_key_t*)a;
  const rdcc_message_key_t* y = (const rdcc_message_key_t*)b;
  return x->association_id == y->association_id && x->message_id == y->message_id;
}

static rdcc_conversation_t* rdcc_get_conversation(packet_info* pinfo) {
  conversation_t* conversation = find_or_create_conversation(pinfo);
  rdcc_conversation_t* state =
      (rdcc_conversation_t*)conversation_get_proto_data(conversation, proto_rdcc);
  if (!state) {
    state = wmem_new(wmem_file_scope(), rdcc_conversation_t);
    state->sequences =
        wmem_map_new(wmem_file_scope(), rdcc_sequence_key_hash, rdcc_sequence_key_equal);
    state->messages =
        wmem_map_new(wmem_file_scope(), rdcc_message_key_hash, rdcc_message_key_equal);
    conversation_add_proto_data(conversation, proto_rdcc, state);
  }
  return state;
}

/* RFC 1982 for 32 bits; exactly 2^31 apart is newer in neither direction. */
static gboolean rdcc_serial_newer(guint32 a, guint32 b) {
  return a != b && (guint32)(a - b) < 0x80000000U;
}

/* The originator's side of the conversation: 0 or 1, the same for all its datagrams. */
static guint8 rdcc_direction(const packet_info* pinfo) {
  int c = cmp_address(&pinfo->src, &pinfo->dst);
  if (c == 0) return pinfo->srcport < pinfo->destport ? 0 : 1;
  return c < 0 ? 0 : 1;
}

/* "Common Header": exempt from the check are ASSOC_REQUEST, ASSOC_ACCEPT, ERROR with reason
 * UNKNOWN_ASSOCIATION, and messages from CRNs. */
static gboolean rdcc_sequence_exempt(guint8 type, guint16 reason) {
  return type == RDCC_ASSOC_REQUEST || type == RDCC_ASSOC_ACCEPT ||
         type == RDCC_CONGESTION_REPORT ||
         (type == RDCC_ERROR && reason == RDCC_REASON_UNKNOWN_ASSOCIATION);
}

/* A value with a fractional part of at most three digits, trailing zeros removed: the same
 * text as the Lua dissector writes. */
static void rdcc_format_scaled(char* buf, size_t size, double value, const char* unit) {
  char number[64];
  size_t n;
  snprintf(number, sizeof number, "%.3f", value);
  n = strlen(number);
  while (n > 0 && number[n - 1] == '0') number[--n] = '\0';
  if (n > 0 && number[n - 1] == '.') number[--n] = '\0';
  snprintf(buf, size, "%s %s", number, unit);
}

typedef enum { RDCC_UNIT_OCTETS, RDCC_UNIT_MBPS, RDCC_UNIT_MICROS } rdcc_unit_t;

/* Appends the unit and, for large values, the value in a larger unit: "262144 octets
 * (256 KiB)", "100000 Mbit/s (100 Gbit/s)", "2000 µs (2 ms)". `zero_means` replaces the
 * parenthesis for a zero value where the spec gives zero a meaning. */
static void rdcc_append_unit(proto_item* item, guint64 value, rdcc_unit_t unit,
                             const char* zero_means) {
  static const char* const iec[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  char human[80] = "";
  double v = (double)value;
  const char* name = "octets";

  switch (unit) {
    case RDCC_UNIT_OCTETS:
      if (value >= 1024) {
        int i = 0;
        v /= 1024.0;
        while (i < 5 && v >= 1024.0) {
          v /= 1024.0;
          i++;
        }
        rdcc_format_scaled(human, sizeof human, v, iec[i]);
      }
      break;
    case RDCC_UNIT_MBPS:
      name = "Mbit/s";
      if (value >= 1000000)
        rdcc_format_scaled(human, sizeof human, v / 1000000.0, "Tbit/s");
      else if (value >= 1000)
        rdcc_format_scaled(human, sizeof human, v / 1000.0, "Gbit/s");
      break;
    case RDCC_UNIT_MICROS:
      name = "\xC2\xB5s";
      if (value >= 1000000)
        rdcc_format_scaled(human, sizeof human, v / 1000000.0, "s");
      else if (value >= 1000)
        rdcc_format_scaled(human, sizeof human, v / 1000.0, "ms");
      break;
  }
  if (value == 0 && zero_means)
    proto_item_append_text(item, " %s (%s)", name, zero_means);
  else if (human[0] != '\0')
    proto_item_append_text(item, " %s (%s)", name, human);
  else
    proto_item_append_text(item, " %s", name);
}

static guint64 rdcc_add_quantity(proto_tree* tree, int hf, tvbuff_t* tvb, int offset, int size,
                                 rdcc_unit_t unit, const char* zero_means, proto_item** item_out) {
  guint64 value;
  guint32 value32;
  proto_item* item;

  if (size == 8) {
    item = proto_tree_add_item_ret_uint64(tree, hf, tvb, offset, size, ENC_BIG_ENDIAN, &value);
  } else {
    item = proto_tree_add_item_ret_uint(tree, hf, tvb, offset, size, ENC_BIG_ENDIAN, &value32);
    value = value32;
  }
  rdcc_append_unit(item, value, unit, zero_means);
  if (item_out) *item_out = item;
  return value;
}

static void rdcc_add_reserved(proto_tree* tree, packet_info* pinfo, int hf, tvbuff_t* tvb,
                              int offset, int size) {
  guint32 value;
  proto_item* item =
      proto_tree_add_item_ret_uint(tree, hf, tvb, offset, size, ENC_BIG_ENDIAN, &value);
  if (value != 0)
    expert_add_info_format(pinfo, item, &ei_rdcc_reserved_nonzero,
                           "Reserved field is 0x%x, not zero (ignored on receipt)", value);
}

static guint32 rdcc_add_enum(proto_tree* tree, packet_info* pinfo, int hf, tvbuff_t* tvb,
                             int offset, int size, const value_string* vals, const char* what) {
  guint32 value;
  proto_item* item =
      proto_tree_add_item_ret_uint(tree, hf, tvb, offset, size, ENC_BIG_ENDIAN, &value);
  if (!try_val_to_str(value, vals))
    expert_add_info_format(pinfo, item, &ei_rdcc_unregistered_value, "%s %u is not registered",
                           what, value);
  return value;
}

static guint64 rdcc_add_message_id(proto_tree* tree, tvbuff_t* tvb, int offset,
                                   proto_item** item_out) {
  guint64 value;
  *item_out = proto_tree_add_item_ret_uint64(tree, hf_rdcc_message_id, tvb, offset, 8,
                                             ENC_BIG_ENDIAN, &value);
  return value;
}

static void dissect_rdcc_assoc_request(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree) {
  proto_tree_add_item(tree, hf_rdcc_sender_nonce, tvb, 16, 8, ENC_BIG_ENDIAN);
  proto_tree_add_bitmask_with_flags(tree, tvb, 24, hf_rdcc_capabilities, ett_rdcc_capabilities,
                                    rdcc_capability_bits, ENC_BIG_ENDIAN, BMT_NO_APPEND);
  rdcc_add_quantity(tree, hf_rdcc_line_rate, tvb, 28, 4, RDCC_UNIT_MBPS, NULL, NULL);
  rdcc_add_reserved(tree, pinfo, hf_rdcc_reserved1, tvb, 32, 4);
  rdcc_add_reserved(tree, pinfo, hf_rdcc_reserved2, tvb, 36, 4);
  rdcc_add_reserved(tree, pinfo, hf_rdcc_reserved3, tvb, 40, 4);
  rdcc_add_reserved(tree, pinfo, hf_rdcc_reserved4, tvb, 44, 4);
}

static void dissect_rdcc_assoc_accept(tvbuff_t* tvb, proto_tree* tree) {
  proto_tree_add_item(tree, hf_rdcc_sender_nonce, tvb, 16, 8, ENC_BIG_ENDIAN);
  proto_tree_add_bitmask_with_flags(tree, tvb, 24, hf_rdcc_capabilities, ett_rdcc_capabilities,
                                    rdcc_capability_bits, ENC_BIG_ENDIAN, BMT_NO_APPEND);
  rdcc_add_quantity(tree, hf_rdcc_unscheduled_limit, tvb, 28, 4, RDCC_UNIT_OCTETS,
                    "unscheduled mode disabled", NULL);
  rdcc_add_quantity(tree, hf_rdcc_start_jitter, tvb, 32, 4, RDCC_UNIT_MICROS, NULL, NULL);
  rdcc_add_quantity(tree, hf_rdcc_backlog_threshold, tvb, 36, 4, RDCC_UNIT_OCTETS, NULL, NULL);
  rdcc_add_quantity(tree, hf_rdcc_grant_lifetime, tvb, 40, 4, RDCC_UNIT_MICROS, NULL, NULL);
  rdcc_add_quantity(tree, hf_rdcc_credit_unit, tvb, 44, 4, RDCC_UNIT_OCTETS, NULL, NULL);
}

static void dissect_rdcc_credit_request(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree,
                                        guint64* message_id, guint64* message_length) {
  proto_item* item;
  guint32 value;
  guint32 binding_kind;

  *message_id = rdcc_add_message_id(tree, tvb, 16, &item);
  if (*message_id == 0)
    expert_add_info_format(pinfo, item, &ei_rdcc_message_id_zero, "Message ID zero is reserved");
  *message_length =
      rdcc_add_quantity(tree, hf_rdcc_message_length, tvb, 24, 8, RDCC_UNIT_OCTETS, NULL, NULL);
  rdcc_add_quantity(tree, hf_rdcc_unscheduled_sent, tvb, 32, 8, RDCC_UNIT_OCTETS, NULL, NULL);
  item = proto_tree_add_item_ret_uint(tree, hf_rdcc_traffic_class, tvb, 40, 1, ENC_NA, &value);
  if (value > RDCC_MAX_TRAFFIC_CLASS)
    expert_add_info_format(pinfo, item, &ei_rdcc_class_above_7,
                           "Class %u is above 7 (treated as 7)", value);
  item = proto_tree_add_item_ret_uint(tree, hf_rdcc_weight, tvb, 41, 1, ENC_NA, &value);
  if (value == 0)
    expert_add_info_format(pinfo, item, &ei_rdcc_weight_zero,
                           "Weight 0 is outside 1..255 (treated as 1)");
  rdcc_add_enum(tree, pinfo, hf_rdcc_service_hint, tvb, 42, 1, rdcc_service_hint_vals,
                "Service Hint");
  binding_kind = rdcc_add_enum(tree, pinfo, hf_rdcc_binding_kind, tvb, 43, 1,
                               rdcc_binding_kind_vals, "Binding Kind");
  rdcc_add_quantity(tree, hf_rdcc_deadline, tvb, 44, 4, RDCC_UNIT_MICROS, "none", NULL);
  item = proto_tree_add_item(tree, hf_rdcc_binding_value, tvb, 48, 8, ENC_BIG_ENDIAN);
  if (binding_kind == RDCC_BINDING_ROCEV2) {
    /* "Transport Bindings", RoCEv2: QPN in bits 63..40, first MSN in 39..16, count. */
    proto_tree* sub = proto_item_add_subtree(item, ett_rdcc_binding_value);
    proto_tree_add_item(sub, hf_rdcc_binding_value_destination_qpn, tvb, 48, 3, ENC_BIG_ENDIAN);
    proto_tree_add_item(sub, hf_rdcc_binding_value_first_msn, tvb, 51, 3, ENC_BIG_ENDIAN);
    proto_tree_add_item(sub, hf_rdcc_binding_value_message_count, tvb, 54, 2, ENC_BIG_ENDIAN);
  }
}

static void dissect_rdcc_credit_grant(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree,
                                      guint16 flags, const rdcc_frame_t* frame,
                                      guint64* message_id) {
  proto_item* item;
  guint64 limit;
  guint64 rate;
  gboolean pool = (flags & RDCC_FLAG_POOL) != 0;
  gboolean final = (flags & RDCC_FLAG_FINAL) != 0;

  *message_id = rdcc_add_message_id(tree, tvb, 16, &item);
  if (pool && *message_id != 0)
    expert_add_info_format(pinfo, item, &ei_rdcc_pool_message_id,
                           "POOL grant with Message ID 0x%" PRIx64 ", not zero", *message_id);
  else if (!pool && *message_id == 0)
    expert_add_info_format(pinfo, item, &ei_rdcc_message_id_zero,
                           "Message ID zero is reserved (and POOL is not set)");
  limit = rdcc_add_quantity(tree, hf_rdcc_grant_limit, tvb, 24, 8, RDCC_UNIT_OCTETS, NULL, &item);
  if (frame->request_known) {
    /* "Credit Requests and Grants", rule 5. */
    if (limit > frame->request_length)
      expert_add_info_format(pinfo, item, &ei_rdcc_grant_beyond_length,
                             "Grant Limit %" PRIu64 " is beyond the message length %" PRIu64, limit,
                             frame->request_length);
    else if (final && limit < frame->request_length)
      expert_add_info_format(pinfo, item, &ei_rdcc_final_below_length,
                             "FINAL with Grant Limit %" PRIu64 " below the message length %" PRIu64,
                             limit, frame->request_length);
    else if (!final && limit == frame->request_length)
      expert_add_info_format(pinfo, item, &ei_rdcc_final_missing,
                             "Grant Limit reaches the message length %" PRIu64 " without FINAL",
                             limit);
  }
  rate = rdcc_add_quantity(tree, hf_rdcc_pacing_rate, tvb, 32, 4, RDCC_UNIT_MBPS, NULL, &item);
  if (rate == 0)
    expert_add_info_format(pinfo, item, &ei_rdcc_pacing_rate_zero,
                           "Pacing Rate 0: the sender must ignore this grant");
  rdcc_add_quantity(tree, hf_rdcc_lifetime, tvb, 36, 4, RDCC_UNIT_MICROS,
                    "the association's default", NULL);
}

static void dissect_rdcc_sender_status(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree) {
  rdcc_add_quantity(tree, hf_rdcc_unused_credit, tvb, 16, 8, RDCC_UNIT_OCTETS, NULL, NULL);
  proto_tree_add_item(tree, hf_rdcc_congestion_level, tvb, 24, 1, ENC_NA);
  rdcc_add_enum(tree, pinfo, hf_rdcc_service_hint, tvb, 25, 1, rdcc_service_hint_vals,
                "Service Hint");
  rdcc_add_reserved(tree, pinfo, hf_rdcc_reserved, tvb, 26, 2);
  rdcc_add_quantity(tree, hf_rdcc_suggested_rate, tvb, 28, 4, RDCC_UNIT_MBPS, "no suggestion",
                    NULL);
}

static void dissect_rdcc_congestion_report(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree,
                                           guint32 af) {
  proto_tree_add_item(tree, hf_rdcc_reporter_id, tvb, 16, 4, ENC_BIG_ENDIAN);
  rdcc_add_quantity(tree, hf_rdcc_queue_depth, tvb, 20, 4, RDCC_UNIT_OCTETS, NULL, NULL);
  rdcc_add_quantity(tree, hf_rdcc_queue_threshold, tvb, 24, 4, RDCC_UNIT_OCTETS, NULL, NULL);
  proto_tree_add_item(tree, hf_rdcc_congestion_degree, tvb, 28, 1, ENC_NA);
  rdcc_add_enum(tree, pinfo, hf_rdcc_direction, tvb, 29, 1, rdcc_direction_vals, "Direction");
  proto_tree_add_item(tree, hf_rdcc_address_family, tvb, 30, 1, ENC_NA);
  proto_tree_add_item(tree, hf_rdcc_protocol, tvb, 31, 1, ENC_NA);
  proto_tree_add_item(tree, hf_rdcc_source_port, tvb, 32, 2, ENC_BIG_ENDIAN);
  proto_tree_add_item(tree, hf_rdcc_destination_port, tvb, 34, 2, ENC_BIG_ENDIAN);
  rdcc_add_quantity(tree, hf_rdcc_suggested_rate, tvb, 36, 4, RDCC_UNIT_MBPS, "none", NULL);
  if (af == 6) {
    proto_tree_add_item(tree, hf_rdcc_source_address_ipv6, tvb, 40, 16, ENC_NA);
    proto_tree_add_item(tree, hf_rdcc_destination_address_ipv6, tvb, 56, 16, ENC_NA);
  } else {
    proto_tree_add_item(tree, hf_rdcc_source_address_ipv4, tvb, 40, 4, ENC_BIG_ENDIAN);
    proto_tree_add_item(tree, hf_rdcc_destination_address_ipv4, tvb, 44, 4, ENC_BIG_ENDIAN);
  }
}

static guint64 dissect_rdcc_id_and_octets(tvbuff_t* tvb, proto_tree* tree, int hf) {
  proto_item* item;
  guint64 message_id = rdcc_add_message_id(tree, tvb, 16, &item);
  rdcc_add_quantity(tree, hf, tvb, 24, 8, RDCC_UNIT_OCTETS, NULL, NULL);
  return message_id;
}

static guint64 dissect_rdcc_cancel(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree) {
  proto_item* item;
  guint64 message_id = rdcc_add_message_id(tree, tvb, 16, &item);
  rdcc_add_enum(tree, pinfo, hf_rdcc_reason, tvb, 24, 2, rdcc_reason_vals, "Reason");
  rdcc_add_reserved(tree, pinfo, hf_rdcc_reserved, tvb, 26, 2);
  return message_id;
}

static guint32 dissect_rdcc_error(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree) {
  proto_item* item;
  guint32 reason =
      rdcc_add_enum(tree, pinfo, hf_rdcc_reason, tvb, 16, 2, rdcc_reason_vals, "Reason");
  rdcc_add_reserved(tree, pinfo, hf_rdcc_reserved, tvb, 18, 2);
  rdcc_add_message_id(tree, tvb, 20, &item);
  return reason;
}

/* First pass only: sequence check and request lookup, recorded for the frame. */
static rdcc_frame_t* rdcc_analyse(packet_info* pinfo, guint8 type, guint32 association_id,
                                  guint16 epoch, guint32 sequence_number, guint16 flags,
                                  guint16 reason, guint64 message_id, guint64 message_length) {
  rdcc_frame_t* frame = (rdcc_frame_t*)p_get_proto_data(wmem_file_scope(), pinfo, proto_rdcc, 0);
  rdcc_conversation_t* conversation;
  gboolean linked;

  if (frame) return frame;
  frame = wmem_new0(wmem_file_scope(), rdcc_frame_t);
  p_add_proto_data(wmem_file_scope(), pinfo, proto_rdcc, 0, frame);
  conversation = rdcc_get_conversation(pinfo);

  if (!rdcc_sequence_exempt(type, reason)) {
    rdcc_sequence_key_t key = {association_id, epoch, rdcc_direction(pinfo)};
    rdcc_sequence_state_t* state =
        (rdcc_sequence_state_t*)wmem_map_lookup(conversation->sequences, &key);
    if (!state) {
      rdcc_sequence_key_t* stored = wmem_new(wmem_file_scope(), rdcc_sequence_key_t);
      *stored = key;
      state = wmem_new(wmem_file_scope(), rdcc_sequence_state_t);
      state->newest = sequence_number;
      state->newest_frame = pinfo->num;
      wmem_map_insert(conversation->sequences, stored, state);
    } else if (!rdcc_serial_newer(sequence_number, state->newest)) {
      /* A discarded message does not advance the newest processed number. */
      frame->sequence_not_newer = TRUE;
      frame->newest = state->newest;
      frame->newest_frame = state->newest_frame;
    } else {
      state->newest = sequence_number;
      state->newest_frame = pinfo->num;
    }
  }

  linked = message_id != 0 && (type == RDCC_CREDIT_REQUEST || type == RDCC_MSG_DONE ||
                               (type == RDCC_CREDIT_GRANT && (flags & RDCC_FLAG_POOL) == 0));
  if (linked) {
    rdcc_message_key_t key = {association_id, message_id};
    rdcc_message_state_t* message =
        (rdcc_message_state_t*)wmem_map_lookup(conversation->messages, &key);
    if (!message) {
      rdcc_message_key_t* stored = wmem_new(wmem_file_scope(), rdcc_message_key_t);
      *stored = key;
      message = wmem_new0(wmem_file_scope(), rdcc_message_state_t);
      wmem_map_insert(conversation->messages, stored, message);
    }
    frame->message = message;
    if (type == RDCC_CREDIT_REQUEST) {
      if (message->request_frame == 0) {
        message->request_frame = pinfo->num;
        message->request_time = pinfo->abs_ts;
      }
      message->message_length = message_length;
    } else if (type == RDCC_CREDIT_GRANT) {
      if (message->request_frame != 0) {
        frame->request_known = TRUE;
        frame->request_length = message->message_length;
      }
      if (message->grant_frame == 0) {
        message->grant_frame = pinfo->num;
        message->grant_time = pinfo->abs_ts;
      }
    } else if (message->done_frame == 0) {
      message->done_frame = pinfo->num;
    }
  }
  return frame;
}

/* request-in / grant-in / done-in and the time from the request to the first grant. */
static void rdcc_add_links(proto_tree* tree, tvbuff_t* tvb, packet_info* pinfo, guint8 type,
                           const rdcc_message_state_t* m) {
  proto_item* item;
  nstime_t delta;

  if (!m) return;
  if (type == RDCC_CREDIT_REQUEST) {
    if (m->grant_frame != 0) {
      item = proto_tree_add_uint(tree, hf_rdcc_grant_in, tvb, 0, 0, m->grant_frame);
      proto_item_set_generated(item);
    }
    if (m->done_frame != 0) {
      item = proto_tree_add_uint(tree, hf_rdcc_done_in, tvb, 0, 0, m->done_frame);
      proto_item_set_generated(item);
    }
    if (m->request_frame == pinfo->num && m->grant_frame > m->request_frame) {
      nstime_delta(&delta, &m->grant_time, &m->request_time);
      item = proto_tree_add_time(tree, hf_rdcc_grant_delay, tvb, 0, 0, &delta);
      proto_item_set_generated(item);
    }
    return;
  }
  if (m->request_frame == 0 || m->request_frame >= pinfo->num) return;
  item = proto_tree_add_uint(tree, hf_rdcc_request_in, tvb, 0, 0, m->request_frame);
  proto_item_set_generated(item);
  if (type == RDCC_MSG_DONE && m->grant_frame != 0 && m->grant_frame < pinfo->num) {
    item = proto_tree_add_uint(tree, hf_rdcc_grant_in, tvb, 0, 0, m->grant_frame);
    proto_item_set_generated(item);
  }
  nstime_delta(&delta, &pinfo->abs_ts, &m->request_time);
  item = proto_tree_add_time(tree, hf_rdcc_time_since_request, tvb, 0, 0, &delta);
  proto_item_set_generated(item);
}

/* Header fields that the datagram holds, for messages that are discarded. */
static proto_item* rdcc_add_partial_header(proto_tree* tree, tvbuff_t* tvb, guint datagram,
                                           proto_item** type_item, proto_item** length_item) {
  proto_item* version_item = proto_tree_add_item(tree, hf_rdcc_version, tvb, 0, 1, ENC_NA);
  proto_tree_add_item(tree, hf_rdcc_rsv, tvb, 0, 1, ENC_NA);
  if (datagram >= 2) *type_item = proto_tree_add_item(tree, hf_rdcc_type, tvb, 1, 1, ENC_NA);
  if (datagram >= 4)
    *length_item = proto_tree_add_item(tree, hf_rdcc_length, tvb, 2, 2, ENC_BIG_ENDIAN);
  return version_item;
}

static int dissect_rdcc(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data _U_) {
  guint datagram = tvb_reported_length(tvb);
  proto_item* root;
  proto_tree* rdcc_tree;
  proto_tree* header_tree;
  proto_item* item;
  proto_item* type_item = NULL;
  proto_item* length_item = NULL;
  proto_item* sequence_item;
  guint8 version;
  guint8 type = 0;
  guint16 length = 0;
  guint16 size;
  guint32 af = 0;
  guint32 rsv;
  guint32 association_id;
  guint32 epoch;
  guint32 flags;
  guint32 sequence_number;
  guint64 message_id = 0;
  guint64 message_length = 0;
  guint16 reason = 0;
  guint16 undefined;
  rdcc_frame_t* frame;
  rdcc_tap_info_t* tap_info;
  const char* type_name;

  col_set_str(pinfo->cinfo, COL_PROTOCOL, "RDCC");
  col_clear(pinfo->cinfo, COL_INFO);

  root = proto_tree_add_item(tree, proto_rdcc, tvb, 0, -1, ENC_NA);
  rdcc_tree = proto_item_add_subtree(root, ett_rdcc);

  /* "Error Handling and Recovery": the checks in the codec's order (docs/spec-notes.md). */
  if (datagram == 0) {
    expert_add_info_format(pinfo, root, &ei_rdcc_truncated, "Empty datagram: no Version");
    col_set_str(pinfo->cinfo, COL_INFO, "Truncated");
    return (int)tvb_captured_length(tvb);
  }
  version = tvb_get_guint8(tvb, 0) >> 4;
  if (datagram >= 2) type = tvb_get_guint8(tvb, 1);
  if (datagram >= 4) length = tvb_get_ntohs(tvb, 2);
  if (datagram < 4 || version != RDCC_VERSION || !try_val_to_str(type, rdcc_type_vals)) {
    header_tree = proto_tree_add_subtree(rdcc_tree, tvb, 0, (gint)MIN(datagram, RDCC_HEADER_SIZE),
                                         ett_rdcc_header, NULL, "Common Header");
    item = rdcc_add_partial_header(header_tree, tvb, datagram, &type_item, &length_item);
    if (version != RDCC_VERSION) {
      expert_add_info_format(pinfo, item, &ei_rdcc_bad_version,
                             "Version %u is not 1: the message must be discarded", version);
      col_add_fstr(pinfo->cinfo, COL_INFO, "Version %u", version);
    } else if (datagram < 2) {
      expert_add_info_format(pinfo, root, &ei_rdcc_truncated,
                             "Datagram of %u octets ends before Type", datagram);
      col_set_str(pinfo->cinfo, COL_INFO, "Truncated");
    } else if (!try_val_to_str(type, rdcc_type_vals)) {
      expert_add_info_format(pinfo, type_item, &ei_rdcc_unknown_type,
                             "Type 0x%02x is not registered: the message must be "
                             "discarded",
                             type);
      col_add_fstr(pinfo->cinfo, COL_INFO, "Unknown type 0x%02x", type);
    } else {
      expert_add_info_format(pinfo, root, &ei_rdcc_truncated,
                             "Datagram of %u octets ends before Length", datagram);
      col_set_str(pinfo->cinfo, COL_INFO, "Truncated");
    }
    return (int)tvb_captured_length(tvb);
  }

  type_name = val_to_str_const(type, rdcc_type_vals, "Unknown");
  size = rdcc_type_size[type];
  if (type == RDCC_CONGESTION_REPORT && datagram > RDCC_AF_OFFSET &&
      tvb_get_guint8(tvb, RDCC_AF_OFFSET) == 6)
    size = RDCC_REPORT_SIZE_IPV6;
  proto_item_append_text(root, ", %s", type_name);
  col_set_str(pinfo->cinfo, COL_INFO, type_name);

  header_tree = proto_tree_add_subtree(rdcc_tree, tvb, 0, (gint)MIN(datagram, RDCC_HEADER_SIZE),
                                       ett_rdcc_header, NULL, "Common Header");
  if (length < size || length > datagram) {
    rdcc_add_partial_header(header_tree, tvb, datagram, &type_item, &length_item);
    if (length < size)
      expert_add_info_format(pinfo, length_item, &ei_rdcc_length_too_small,
                             "Length %u is smaller than %u, the size of %s: the message "
                             "must be discarded",
                             length, size, type_name);
    else
      expert_add_info_format(pinfo, length_item, &ei_rdcc_length_beyond_datagram,
                             "Length %u is beyond the %u-octet datagram: the message "
                             "must be discarded",
                             length, datagram);
    col_append_str(pinfo->cinfo, COL_INFO, " [discarded: bad Length]");
    return (int)tvb_captured_length(tvb);
  }
  if (type == RDCC_CONGESTION_REPORT) {
    af = tvb_get_guint8(tvb, RDCC_AF_OFFSET);
    if (af != 4 && af != 6) {
      rdcc_add_partial_header(header_tree, tvb, datagram, &type_item, &length_item);
      item = proto_tree_add_item(rdcc_tree, hf_rdcc_address_family, tvb, RDCC_AF_OFFSET, 1, ENC_NA);
      expert_add_info_format(pinfo, item, &ei_rdcc_bad_address_family,
                             "AF %u is neither 4 nor 6: the addresses cannot be read", af);
      col_append_str(pinfo->cinfo, COL_INFO, " [discarded: bad AF]");
      return (int)tvb_captured_length(tvb);
    }
  }

  proto_item_set_len(root, length);
  proto_tree_add_item(header_tree, hf_rdcc_version, tvb, 0, 1, ENC_NA);
  item = proto_tree_add_item_ret_uint(header_tree, hf_rdcc_rsv, tvb, 0, 1, ENC_NA, &rsv);
  if (rsv != 0)
    expert_add_info_format(pinfo, item, &ei_rdcc_reserved_nonzero,
                           "Rsv is 0x%x, not zero (ignored on receipt)", rsv);
  proto_tree_add_item(header_tree, hf_rdcc_type, tvb, 1, 1, ENC_NA);
  proto_tree_add_item(header_tree, hf_rdcc_length, tvb, 2, 2, ENC_BIG_ENDIAN);
  proto_tree_add_item_ret_uint(header_tree, hf_rdcc_association_id, tvb, 4, 4, ENC_BIG_ENDIAN,
                               &association_id);
  proto_tree_add_item_ret_uint(header_tree, hf_rdcc_epoch, tvb, 8, 2, ENC_BIG_ENDIAN, &epoch);
  flags = tvb_get_ntohs(tvb, 10);
  if (rdcc_flag_fields(type))
    item = proto_tree_add_bitmask_with_flags(header_tree, tvb, 10, hf_rdcc_flags, ett_rdcc_flags,
                                             rdcc_flag_fields(type), ENC_BIG_ENDIAN, BMT_NO_APPEND);
  else
    item = proto_tree_add_item(header_tree, hf_rdcc_flags, tvb, 10, 2, ENC_BIG_ENDIAN);
  undefined = (guint16)(flags & ~rdcc_defined_flags(type));
  if (undefined != 0)
    expert_add_info_format(pinfo, item, &ei_rdcc_undefined_flags,
                           "Undefined flags 0x%04x set (ignored on receipt)", undefined);
  sequence_item = proto_tree_add_item_ret_uint(header_tree, hf_rdcc_sequence_number, tvb, 12, 4,
                                               ENC_BIG_ENDIAN, &sequence_number);

  /* The request's identity and the reason are needed by the first-pass analysis. */
  if (type == RDCC_CREDIT_REQUEST || type == RDCC_CREDIT_GRANT || type == RDCC_MSG_DONE)
    message_id = tvb_get_ntoh64(tvb, 16);
  if (type == RDCC_CREDIT_REQUEST) message_length = tvb_get_ntoh64(tvb, 24);
  if (type == RDCC_ERROR) reason = tvb_get_ntohs(tvb, 16);
  frame = rdcc_analyse(pinfo, type, association_id, (guint16)epoch, sequence_number, (guint16)flags,
                       reason, message_id, message_length);
  if (frame->sequence_not_newer)
    expert_add_info_format(pinfo, sequence_item, &ei_rdcc_sequence_not_newer,
                           "Sequence Number %u is not newer than %u (frame %u): the message "
                           "must be discarded",
                           sequence_number, frame->newest, frame->newest_frame);

  switch (type) {
    case RDCC_ASSOC_REQUEST: dissect_rdcc_assoc_request(tvb, pinfo, rdcc_tree); break;
    case RDCC_ASSOC_ACCEPT: dissect_rdcc_assoc_accept(tvb, rdcc_tree); break;
    case RDCC_CREDIT_REQUEST:
      dissect_rdcc_credit_request(tvb, pinfo, rdcc_tree, &message_id, &message_length);
      break;
    case RDCC_CREDIT_GRANT:
      dissect_rdcc_credit_grant(tvb, pinfo, rdcc_tree, (guint16)flags, frame, &message_id);
      break;
    case RDCC_SENDER_STATUS: dissect_rdcc_sender_status(tvb, pinfo, rdcc_tree); break;
    case RDCC_CONGESTION_REPORT: dissect_rdcc_congestion_report(tvb, pinfo, rdcc_tree, af); break;
    case RDCC_MSG_DONE: dissect_rdcc_id_and_octets(tvb, rdcc_tree, hf_rdcc_octets_received); break;
    case RDCC_CANCEL: dissect_rdcc_cancel(tvb, pinfo, rdcc_tree); break;
    case RDCC_CREDIT_RETURN: dissect_rdcc_id_and_octets(tvb, rdcc_tree, hf_rdcc_new_limit); break;
    case RDCC_ERROR: dissect_rdcc_error(tvb, pinfo, rdcc_tree); break;
    default: DISSECTOR_ASSERT_NOT_REACHED();
  }

  if (length > size) {
    item = proto_tree_add_item(rdcc_tree, hf_rdcc_extension, tvb, size, length - size, ENC_NA);
    expert_add_info_format(pinfo, item, &ei_rdcc_extension_octets,
                           "%u octets between the end of %s and Length (ignored)", length - size,
                           type_name);
  }
  if (datagram > length) {
    item = proto_tree_add_item(rdcc_tree, hf_rdcc_trailing, tvb, length, (gint)(datagram - length),
                               ENC_NA);
    expert_add_info_format(pinfo, item, &ei_rdcc_trailing_octets,
                           "%u octets after Length are not part of the message", datagram - length);
  }
  rdcc_add_links(rdcc_tree, tvb, pinfo, type, frame->message);

  tap_info = wmem_new0(pinfo->pool, rdcc_tap_info_t);
  tap_info->type = type;
  tap_info->flags = (guint16)flags;
  tap_info->association_id = association_id;
  tap_info->message_id = message_id;
  if (type == RDCC_CREDIT_GRANT) tap_info->grant_limit = tvb_get_ntoh64(tvb, 24);
  tap_queue_packet(rdcc_tap, pinfo, tap_info);
  return (int)tvb_captured_length(tvb);
}

/* RDCC on any UDP port, where the rdcc.try_heuristic preference allows: Version 1, a registered
 * Type, Length equal to the datagram and not smaller than the type's size, and for
 * CONGESTION_REPORT an AF of 4 or 6. */
static gboolean dissect_rdcc_heur_udp(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree,
                                      void* data) {
  guint datagram = tvb_reported_length(tvb);
  guint8 type;
  guint16 size;

  if (!rdcc_try_heuristic || tvb_captured_length(tvb) < RDCC_HEADER_SIZE) return FALSE;
  if ((tvb_get_guint8(tvb, 0) >> 4) != RDCC_VERSION) return FALSE;
  type = tvb_get_guint8(tvb, 1);
  if (type < RDCC_ASSOC_REQUEST || type > RDCC_ERROR) return FALSE;
  if (tvb_get_ntohs(tvb, 2) != datagram) return FALSE;
  size = rdcc_type_size[type];
  if (type == RDCC_CONGESTION_REPORT && tvb_captured_length(tvb) > RDCC_AF_OFFSET) {
    guint8 af = tvb_get_guint8(tvb, RDCC_AF_OFFSET);
    if (af != 4 && af != 6) return FALSE;
    if (af == 6) size = RDCC_REPORT_SIZE_IPV6;
  }
  if (datagram < size) return FALSE;
  dissect_rdcc(tvb, pinfo, tree, data);
  return TRUE;
}

/* The stats tree "-z rdcc,tree": messages per type, grants (per message and pool, FINAL), and
 * the credit each association was granted: the growth of each message's Grant Limit (and of
 * the pool's), in octets. A grant that does not raise the limit adds nothing. */
static const char* st_str_messages = "Messages by type";
static const char* st_str_grants = "CREDIT_GRANT";
static const char* st_str_credit = "Credit granted (octets) by association";
static int st_node_messages = -1;
static int st_node_grants = -1;
static int st_node_credit = -1;
/* (receiver, association, message or pool) -> the highest Grant Limit so far. */
static GHashTable* st_grant_limits = NULL;

static void rdcc_stats_tree_init(stats_tree* st) {
  st_node_messages = stats_tree_create_node(st, st_str_messages, 0, STAT_DT_INT, TRUE);
  st_node_grants = stats_tree_create_node(st, st_str_grants, 0, STAT_DT_INT, TRUE);
  st_node_credit = stats_tree_create_node(st, st_str_credit, 0, STAT_DT_INT, TRUE);
  if (st_grant_limits) g_hash_table_destroy(st_grant_limits);
  st_grant_limits = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

static void rdcc_stats_tree_cleanup(stats_tree* st _U_) {
  if (st_grant_limits) {
    g_hash_table_destroy(st_grant_limits);
    st_grant_limits = NULL;
  }
}

static tap_packet_status rdcc_stats_tree_packet(stats_tree* st, packet_info* pinfo,
                                                epan_dissect_t* edt _U_, const void* p,
                                                tap_flags_t flags _U_) {
  const rdcc_tap_info_t* info = (const rdcc_tap_info_t*)p;
  gboolean pool = (info->flags & RDCC_FLAG_POOL) != 0;
  gchar* receiver;
  gchar* association;
  gchar* key;
  guint64* limit;
  guint64 more;

  tick_stat_node(st, st_str_messages, 0, TRUE);
  tick_stat_node(st, val_to_str_const(info->type, rdcc_type_vals, "Unknown"), st_node_messages,
                 FALSE);
  if (info->type != RDCC_CREDIT_GRANT) return TAP_PACKET_REDRAW;

  tick_stat_node(st, st_str_grants, 0, TRUE);
  tick_stat_node(st, pool ? "POOL" : "per message", st_node_grants, FALSE);
  if (info->flags & RDCC_FLAG_FINAL) tick_stat_node(st, "FINAL", st_node_grants, FALSE);

  /* A grant travels from the receiver: its source names the receiver. */
  receiver = address_to_str(pinfo->pool, &pinfo->src);
  association = wmem_strdup_printf(pinfo->pool, "0x%08x at %s", info->association_id, receiver);
  key = g_strdup_printf("%s %08x %s %" G_GINT64_MODIFIER "x", receiver, info->association_id,
                        pool ? "pool" : "msg", pool ? 0 : info->message_id);
  limit = (guint64*)g_hash_table_lookup(st_grant_limits, key);
  if (!limit) {
    limit = g_new0(guint64, 1);
    g_hash_table_insert(st_grant_limits, key, limit);
  } else {
    g_free(key);
  }
  more = info->grant_limit > *limit ? info->grant_limit - *limit : 0;
  if (info->grant_limit > *limit) *limit = info->grant_limit;
  /* A node counts in a gint: growth beyond 2^31 - 1 octets in one grant is shown capped. */
  increase_stat_node(st, st_str_credit, 0, TRUE, (gint)MIN(more, (guint64)G_MAXINT));
  increase_stat_node(st, association, st_node_credit, FALSE, (gint)MIN(more, (guint64)G_MAXINT));
  return TAP_PACKET_REDRAW;
}

void proto_register_rdcc(void) {
  static hf_register_info hf[] = {
      {&hf_rdcc_version, {"Version", "rdcc.version", FT_UINT8, BASE_DEC, NULL, 0xF0, NULL, HFILL}},
      {&hf_rdcc_rsv, {"Rsv", "rdcc.rsv", FT_UINT8, BASE_HEX, NULL, 0x0F, "Reserved bits", HFILL}},
      {&hf_rdcc_type,
       {"Type", "rdcc.type", FT_UINT8, BASE_HEX, VALS(rdcc_type_vals), 0x0, "Message type", HFILL}},
      {&hf_rdcc_length,
       {"Length", "rdcc.length", FT_UINT16, BASE_DEC, NULL, 0x0,
        "Length of the message in octets, including the header", HFILL}},
      {&hf_rdcc_association_id,
       {"Association ID", "rdcc.association_id", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_epoch,
       {"Epoch", "rdcc.epoch", FT_UINT16, BASE_DEC, NULL, 0x0,
        "Incarnation of the receiver's RDCC state", HFILL}},
      {&hf_rdcc_flags, {"Flags", "rdcc.flags", FT_UINT16, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_flags_parameter_update,
       {"Parameter Update", "rdcc.flags.parameter_update", FT_BOOLEAN, 16, TFS(&tfs_set_notset),
        RDCC_FLAG_PARAMETER_UPDATE, NULL, HFILL}},
      {&hf_rdcc_flags_update_acknowledgment,
       {"Update Acknowledgment", "rdcc.flags.update_acknowledgment", FT_BOOLEAN, 16,
        TFS(&tfs_set_notset), RDCC_FLAG_UPDATE_ACKNOWLEDGMENT, NULL, HFILL}},
      {&hf_rdcc_flags_pool,
       {"POOL", "rdcc.flags.pool", FT_BOOLEAN, 16, TFS(&tfs_set_notset), RDCC_FLAG_POOL,
        "The grant covers the association's pool", HFILL}},
      {&hf_rdcc_flags_final,
       {"FINAL", "rdcc.flags.final", FT_BOOLEAN, 16, TFS(&tfs_set_notset), RDCC_FLAG_FINAL,
        "Grant Limit equals the message length", HFILL}},
      {&hf_rdcc_sequence_number,
       {"Sequence Number", "rdcc.sequence_number", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_sender_nonce,
       {"Sender Nonce", "rdcc.sender_nonce", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_capabilities,
       {"Capabilities", "rdcc.capabilities", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_capabilities_pool,
       {"POOL", "rdcc.capabilities.pool", FT_BOOLEAN, 32, TFS(&tfs_set_notset), RDCC_CAP_POOL,
        "Pool grants supported", HFILL}},
      {&hf_rdcc_capabilities_status,
       {"STATUS", "rdcc.capabilities.status", FT_BOOLEAN, 32, TFS(&tfs_set_notset), RDCC_CAP_STATUS,
        "SENDER_STATUS supported", HFILL}},
      {&hf_rdcc_capabilities_crn,
       {"CRN", "rdcc.capabilities.crn", FT_BOOLEAN, 32, TFS(&tfs_set_notset), RDCC_CAP_CRN,
        "On-path reports are processed", HFILL}},
      {&hf_rdcc_line_rate,
       {"Line Rate", "rdcc.line_rate", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_reserved1,
       {"Reserved 1", "rdcc.reserved1", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_reserved2,
       {"Reserved 2", "rdcc.reserved2", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_reserved3,
       {"Reserved 3", "rdcc.reserved3", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_reserved4,
       {"Reserved 4", "rdcc.reserved4", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_unscheduled_limit,
       {"Unscheduled Limit (U)", "rdcc.unscheduled_limit", FT_UINT32, BASE_DEC, NULL, 0x0, NULL,
        HFILL}},
      {&hf_rdcc_start_jitter,
       {"Start Jitter (J)", "rdcc.start_jitter", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_backlog_threshold,
       {"Backlog Threshold (N_cu)", "rdcc.backlog_threshold", FT_UINT32, BASE_DEC, NULL, 0x0, NULL,
        HFILL}},
      {&hf_rdcc_grant_lifetime,
       {"Grant Lifetime", "rdcc.grant_lifetime", FT_UINT32, BASE_DEC, NULL, 0x0,
        "Default Grant Lifetime of the association", HFILL}},
      {&hf_rdcc_credit_unit,
       {"Credit Unit", "rdcc.credit_unit", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_message_id,
       {"Message ID", "rdcc.message_id", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_message_length,
       {"Message Length", "rdcc.message_length", FT_UINT64, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_unscheduled_sent,
       {"Unscheduled Sent", "rdcc.unscheduled_sent", FT_UINT64, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_traffic_class,
       {"Class", "rdcc.traffic_class", FT_UINT8, BASE_DEC, NULL, 0x0, "Traffic Class", HFILL}},
      {&hf_rdcc_weight, {"Weight", "rdcc.weight", FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_service_hint,
       {"Service Hint", "rdcc.service_hint", FT_UINT8, BASE_DEC, VALS(rdcc_service_hint_vals), 0x0,
        NULL, HFILL}},
      {&hf_rdcc_binding_kind,
       {"Binding Kind", "rdcc.binding_kind", FT_UINT8, BASE_DEC, VALS(rdcc_binding_kind_vals), 0x0,
        NULL, HFILL}},
      {&hf_rdcc_deadline,
       {"Deadline", "rdcc.deadline", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_binding_value,
       {"Binding Value", "rdcc.binding_value", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_binding_value_destination_qpn,
       {"Destination QPN", "rdcc.binding_value.destination_qpn", FT_UINT24, BASE_HEX, NULL, 0x0,
        "Destination queue pair number", HFILL}},
      {&hf_rdcc_binding_value_first_msn,
       {"First MSN", "rdcc.binding_value.first_msn", FT_UINT24, BASE_DEC, NULL, 0x0,
        "Message sequence number of the first RDMA message", HFILL}},
      {&hf_rdcc_binding_value_message_count,
       {"RDMA Messages", "rdcc.binding_value.message_count", FT_UINT16, BASE_DEC, NULL, 0x0,
        "Number of RDMA messages", HFILL}},
      {&hf_rdcc_grant_limit,
       {"Grant Limit", "rdcc.grant_limit", FT_UINT64, BASE_DEC, NULL, 0x0,
        "Cumulative octet offset (exclusive) up to which the sender may transmit", HFILL}},
      {&hf_rdcc_pacing_rate,
       {"Pacing Rate", "rdcc.pacing_rate", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_lifetime,
       {"Lifetime", "rdcc.lifetime", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_unused_credit,
       {"Unused Credit", "rdcc.unused_credit", FT_UINT64, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_congestion_level,
       {"Congestion Level", "rdcc.congestion_level", FT_UINT8, BASE_DEC, NULL, 0x0,
        "0 none .. 255 saturated", HFILL}},
      {&hf_rdcc_reserved,
       {"Reserved", "rdcc.reserved", FT_UINT16, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_suggested_rate,
       {"Suggested Rate", "rdcc.suggested_rate", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_reporter_id,
       {"Reporter ID", "rdcc.reporter_id", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_queue_depth,
       {"Queue Depth", "rdcc.queue_depth", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_queue_threshold,
       {"Queue Threshold", "rdcc.queue_threshold", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_congestion_degree,
       {"Congestion Degree", "rdcc.congestion_degree", FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_direction,
       {"Direction", "rdcc.direction", FT_UINT8, BASE_DEC, VALS(rdcc_direction_vals), 0x0, NULL,
        HFILL}},
      {&hf_rdcc_address_family,
       {"AF", "rdcc.address_family", FT_UINT8, BASE_DEC, VALS(rdcc_address_family_vals), 0x0,
        "Address family", HFILL}},
      {&hf_rdcc_protocol,
       {"Protocol", "rdcc.protocol", FT_UINT8, BASE_DEC, NULL, 0x0,
        "IP protocol of the data packet", HFILL}},
      {&hf_rdcc_source_port,
       {"Source Port", "rdcc.source_port", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_destination_port,
       {"Destination Port", "rdcc.destination_port", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_source_address_ipv4,
       {"Source Address", "rdcc.source_address_ipv4", FT_IPv4, BASE_NONE, NULL, 0x0,
        "Source address of the data packet (AF 4)", HFILL}},
      {&hf_rdcc_destination_address_ipv4,
       {"Destination Address", "rdcc.destination_address_ipv4", FT_IPv4, BASE_NONE, NULL, 0x0,
        "Destination address of the data packet (AF 4)", HFILL}},
      {&hf_rdcc_source_address_ipv6,
       {"Source Address", "rdcc.source_address_ipv6", FT_IPv6, BASE_NONE, NULL, 0x0,
        "Source address of the data packet (AF 6)", HFILL}},
      {&hf_rdcc_destination_address_ipv6,
       {"Destination Address", "rdcc.destination_address_ipv6", FT_IPv6, BASE_NONE, NULL, 0x0,
        "Destination address of the data packet (AF 6)", HFILL}},
      {&hf_rdcc_octets_received,
       {"Octets Received", "rdcc.octets_received", FT_UINT64, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_reason,
       {"Reason", "rdcc.reason", FT_UINT16, BASE_HEX, VALS(rdcc_reason_vals), 0x0, NULL, HFILL}},
      {&hf_rdcc_new_limit,
       {"New Limit", "rdcc.new_limit", FT_UINT64, BASE_DEC, NULL, 0x0,
        "Offset beyond which the sender will not transmit", HFILL}},
      {&hf_rdcc_extension,
       {"Octets beyond the defined body", "rdcc.extension", FT_BYTES, BASE_NONE, NULL, 0x0, NULL,
        HFILL}},
      {&hf_rdcc_trailing,
       {"Octets after Length", "rdcc.trailing", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_request_in,
       {"Request In", "rdcc.request_in", FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST),
        0x0, "The first CREDIT_REQUEST for this message is in this frame", HFILL}},
      {&hf_rdcc_grant_in,
       {"First Grant In", "rdcc.grant_in", FT_FRAMENUM, BASE_NONE,
        FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0,
        "The first CREDIT_GRANT for this message is in this frame", HFILL}},
      {&hf_rdcc_done_in,
       {"MSG_DONE In", "rdcc.done_in", FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE),
        0x0, "The MSG_DONE for this message is in this frame", HFILL}},
      {&hf_rdcc_grant_delay,
       {"Time to First Grant", "rdcc.grant_delay", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
        "Time from the first CREDIT_REQUEST to the first CREDIT_GRANT", HFILL}},
      {&hf_rdcc_time_since_request,
       {"Time Since Request", "rdcc.time_since_request", FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
        "Time since the first CREDIT_REQUEST for this message", HFILL}},
  };

  static gint* ett[] = {
      &ett_rdcc, &ett_rdcc_header, &ett_rdcc_flags, &ett_rdcc_capabilities, &ett_rdcc_binding_value,
  };

  static ei_register_info ei[] = {
      {&ei_rdcc_truncated,
       {"rdcc.expert.truncated", PI_MALFORMED, PI_ERROR,
        "Datagram ends before Version, Type or Length", EXPFILL}},
      {&ei_rdcc_bad_version,
       {"rdcc.expert.bad_version", PI_MALFORMED, PI_ERROR, "Version is not 1", EXPFILL}},
      {&ei_rdcc_unknown_type,
       {"rdcc.expert.unknown_type", PI_MALFORMED, PI_ERROR, "Type is not registered", EXPFILL}},
      {&ei_rdcc_length_too_small,
       {"rdcc.expert.length_too_small", PI_MALFORMED, PI_ERROR,
        "Length is smaller than the size of the type", EXPFILL}},
      {&ei_rdcc_length_beyond_datagram,
       {"rdcc.expert.length_beyond_datagram", PI_MALFORMED, PI_ERROR,
        "Length is beyond the datagram", EXPFILL}},
      {&ei_rdcc_bad_address_family,
       {"rdcc.expert.bad_address_family", PI_MALFORMED, PI_ERROR, "AF is neither 4 nor 6",
        EXPFILL}},
      {&ei_rdcc_reserved_nonzero,
       {"rdcc.expert.reserved_nonzero", PI_PROTOCOL, PI_WARN, "Reserved bits are not zero",
        EXPFILL}},
      {&ei_rdcc_undefined_flags,
       {"rdcc.expert.undefined_flags", PI_PROTOCOL, PI_NOTE, "Undefined flags are set", EXPFILL}},
      {&ei_rdcc_class_above_7,
       {"rdcc.expert.class_above_7", PI_PROTOCOL, PI_WARN, "Class is above 7", EXPFILL}},
      {&ei_rdcc_weight_zero,
       {"rdcc.expert.weight_zero", PI_PROTOCOL, PI_WARN, "Weight is zero", EXPFILL}},
      {&ei_rdcc_pacing_rate_zero,
       {"rdcc.expert.pacing_rate_zero", PI_PROTOCOL, PI_WARN, "Pacing Rate is zero", EXPFILL}},
      {&ei_rdcc_pool_message_id,
       {"rdcc.expert.pool_message_id", PI_PROTOCOL, PI_WARN,
        "POOL grant with a non-zero Message ID", EXPFILL}},
      {&ei_rdcc_message_id_zero,
       {"rdcc.expert.message_id_zero", PI_PROTOCOL, PI_WARN, "Message ID zero is reserved",
        EXPFILL}},
      {&ei_rdcc_final_below_length,
       {"rdcc.expert.final_below_length", PI_PROTOCOL, PI_WARN,
        "FINAL with a Grant Limit below the message length", EXPFILL}},
      {&ei_rdcc_grant_beyond_length,
       {"rdcc.expert.grant_beyond_length", PI_PROTOCOL, PI_WARN,
        "Grant Limit beyond the message length", EXPFILL}},
      {&ei_rdcc_final_missing,
       {"rdcc.expert.final_missing", PI_PROTOCOL, PI_WARN,
        "Grant reaches the message length without FINAL", EXPFILL}},
      {&ei_rdcc_sequence_not_newer,
       {"rdcc.expert.sequence_not_newer", PI_SEQUENCE, PI_WARN,
        "Sequence Number is not newer than the newest processed", EXPFILL}},
      {&ei_rdcc_unregistered_value,
       {"rdcc.expert.unregistered_value", PI_PROTOCOL, PI_NOTE, "Value is not registered",
        EXPFILL}},
      {&ei_rdcc_extension_octets,
       {"rdcc.expert.extension_octets", PI_PROTOCOL, PI_NOTE,
        "Length is larger than the size of the type", EXPFILL}},
      {&ei_rdcc_trailing_octets,
       {"rdcc.expert.trailing_octets", PI_MALFORMED, PI_WARN,
        "Octets after Length are not part of the message", EXPFILL}},
  };

  expert_module_t* expert_rdcc;
  module_t* rdcc_module;

  proto_rdcc = proto_register_protocol("Receiver-Driven Credit Control", "RDCC", "rdcc");
  proto_register_field_array(proto_rdcc, hf, array_length(hf));
  proto_register_subtree_array(ett, array_length(ett));
  expert_rdcc = expert_register_protocol(proto_rdcc);
  expert_register_field_array(expert_rdcc, ei, array_length(ei));

  rdcc_handle = register_dissector("rdcc", dissect_rdcc, proto_rdcc);
  rdcc_tap = register_tap("rdcc");

  rdcc_module = prefs_register_protocol(proto_rdcc, NULL);
  prefs_register_bool_preference(rdcc_module, "try_heuristic", "Try to find RDCC on any UDP port",
                                 "Look at every UDP datagram for an RDCC message (Version 1, a "
                                 "registered Type, Length equal to the datagram). Off by "
                                 "default: the spec gives RDCC no port, and a datagram of "
                                 "another protocol may pass these checks.",
                                 &rdcc_try_heuristic);
}

void proto_reg_handoff_rdcc(void) {
  /* No default port: "Implementations MUST NOT assume a default port value." This adds the
   * rdcc.udp.port preference (empty) and Decode As. */
  dissector_add_uint_range_with_preference("udp.port", "", rdcc_handle);
  heur_dissector_add("udp", dissect_rdcc_heur_udp, "RDCC over UDP", "rdcc_udp", proto_rdcc,
                     HEURISTIC_ENABLE);
  stats_tree_register_plugin("rdcc", "rdcc", "RDCC/Messages, grants and credit", 0,
                             rdcc_stats_tree_packet, rdcc_stats_tree_init, rdcc_stats_tree_cleanup);
}

/*
 * Editor modelines  -  https://www.wireshark.org/tools/modelines.html
 *
 * Local variables:
 * c-basic-offset: 4
 * tab-width: 8
 * indent-tabs-mode: nil
 * End:
 *
 * vi: set shiftwidth=4 tabstop=8 expandtab:
 * :indentSize=4:tabSize=8:noTabs=true:
 */
