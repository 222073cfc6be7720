/* packet-rdcc-data.c
 * Routines for the RDCC toolkit's opaque data transport (Binding Kind 2)
 *
 * RDCC leaves data packets to a transport binding. For the Opaque binding the RDCC toolkit
 * defines a small UDP transport (its docs/data-transport.md): a 24-octet header (magic 0x5244
 * "RD", version 1, flags, payload length, the 64-bit message identifier that a CREDIT_REQUEST
 * carried as Binding Value, and the octet offset of the payload), then the payload. Like RDCC
 * itself it has no port: select it with Decode As (udp.port), or the rdcc_data.udp.port
 * preference. The checks are the toolkit codec's, in its order: the first failure is shown
 * with the field it concerns.
 *
 * The Lua dissector (dissector/lua/rdcc.lua) registers the same protocol with the same fields.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/tfs.h>

#define RDCC_DATA_MAGIC 0x5244
#define RDCC_DATA_VERSION 1
#define RDCC_DATA_HEADER_SIZE 24
#define RDCC_DATA_FLAG_LAST 0x01
#define RDCC_DATA_FLAG_UNSCHEDULED 0x02
#define RDCC_DATA_FLAG_RECOVERS 0x04
#define RDCC_DATA_FLAG_NACK 0x08
#define RDCC_DATA_FLAGS_DEFINED \
  (RDCC_DATA_FLAG_LAST | RDCC_DATA_FLAG_UNSCHEDULED | RDCC_DATA_FLAG_RECOVERS | RDCC_DATA_FLAG_NACK)

void proto_register_rdcc_data(void);
void proto_reg_handoff_rdcc_data(void);

static int proto_rdcc_data = -1;

static int hf_rdcc_data_magic = -1;
static int hf_rdcc_data_version = -1;
static int hf_rdcc_data_flags = -1;
static int hf_rdcc_data_flags_last = -1;
static int hf_rdcc_data_flags_unscheduled = -1;
static int hf_rdcc_data_flags_recovers = -1;
static int hf_rdcc_data_flags_nack = -1;
static int hf_rdcc_data_payload_length = -1;
static int hf_rdcc_data_message_identifier = -1;
static int hf_rdcc_data_offset = -1;
static int hf_rdcc_data_payload = -1;
static int hf_rdcc_data_trailing = -1;

static gint ett_rdcc_data = -1;
static gint ett_rdcc_data_flags = -1;

static expert_field ei_rdcc_data_truncated = EI_INIT;
static expert_field ei_rdcc_data_bad_magic = EI_INIT;
static expert_field ei_rdcc_data_bad_version = EI_INIT;
static expert_field ei_rdcc_data_payload_beyond_packet = EI_INIT;
static expert_field ei_rdcc_data_offset_overflow = EI_INIT;
static expert_field ei_rdcc_data_undefined_flags = EI_INIT;
static expert_field ei_rdcc_data_trailing_octets = EI_INIT;

static dissector_handle_t rdcc_data_handle;

static int* const rdcc_data_flag_bits[] = {
    &hf_rdcc_data_flags_last, &hf_rdcc_data_flags_unscheduled, &hf_rdcc_data_flags_recovers,
    &hf_rdcc_data_flags_nack, NULL};

/* The codec's first check of each header field: the packet holds it. Shows "Truncated" at
 * the field the packet ends in, and returns FALSE, if not. */
static gboolean rdcc_data_holds(packet_info* pinfo, proto_item* root, guint packet, guint offset,
                                guint size, const char* name) {
  if (packet >= offset + size) return TRUE;
  expert_add_info_format(pinfo, root, &ei_rdcc_data_truncated,
                         "Packet of %u octets ends before %s (offset %u)", packet, name, offset);
  col_set_str(pinfo->cinfo, COL_INFO, "Truncated");
  return FALSE;
}

static int dissect_rdcc_data(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data _U_) {
  guint packet = tvb_reported_length(tvb);
  proto_item* root;
  proto_tree* data_tree;
  proto_item* item;
  proto_item* payload_length_item;
  proto_item* offset_item;
  guint32 magic;
  guint32 version;
  guint32 flags;
  guint32 payload_length;
  guint64 message_identifier;
  guint64 offset;
  guint captured;

  col_set_str(pinfo->cinfo, COL_PROTOCOL, "RDCC Data");
  col_clear(pinfo->cinfo, COL_INFO);
  root = proto_tree_add_item(tree, proto_rdcc_data, tvb, 0, -1, ENC_NA);
  data_tree = proto_item_add_subtree(root, ett_rdcc_data);

  if (!rdcc_data_holds(pinfo, root, packet, 0, 2, "Magic")) return (int)tvb_captured_length(tvb);
  item = proto_tree_add_item_ret_uint(data_tree, hf_rdcc_data_magic, tvb, 0, 2, ENC_BIG_ENDIAN,
                                      &magic);
  if (magic != RDCC_DATA_MAGIC) {
    expert_add_info_format(pinfo, item, &ei_rdcc_data_bad_magic,
                           "Magic 0x%04x is not 0x5244: not a packet of this transport", magic);
    col_add_fstr(pinfo->cinfo, COL_INFO, "Bad magic 0x%04x", magic);
    return (int)tvb_captured_length(tvb);
  }
  if (!rdcc_data_holds(pinfo, root, packet, 2, 1, "Version")) return (int)tvb_captured_length(tvb);
  item = proto_tree_add_item_ret_uint(data_tree, hf_rdcc_data_version, tvb, 2, 1, ENC_NA, &version);
  if (version != RDCC_DATA_VERSION) {
    expert_add_info_format(pinfo, item, &ei_rdcc_data_bad_version, "Version %u is not 1", version);
    col_add_fstr(pinfo->cinfo, COL_INFO, "Version %u", version);
    return (int)tvb_captured_length(tvb);
  }
  if (!rdcc_data_holds(pinfo, root, packet, 3, 1, "Flags")) return (int)tvb_captured_length(tvb);
  flags = tvb_get_guint8(tvb, 3);
  item =
      proto_tree_add_bitmask_with_flags(data_tree, tvb, 3, hf_rdcc_data_flags, ett_rdcc_data_flags,
                                        rdcc_data_flag_bits, ENC_NA, BMT_NO_APPEND);
  if ((flags & ~(guint32)RDCC_DATA_FLAGS_DEFINED) != 0)
    expert_add_info_format(pinfo, item, &ei_rdcc_data_undefined_flags,
                           "Undefined flags 0x%02x set (ignored on receipt)",
                           flags & ~(guint32)RDCC_DATA_FLAGS_DEFINED);
  if (!rdcc_data_holds(pinfo, root, packet, 4, 4, "Payload Length") ||
      !rdcc_data_holds(pinfo, root, packet, 8, 8, "Message Identifier") ||
      !rdcc_data_holds(pinfo, root, packet, 16, 8, "Offset"))
    return (int)tvb_captured_length(tvb);
  payload_length_item = proto_tree_add_item_ret_uint(data_tree, hf_rdcc_data_payload_length, tvb, 4,
                                                     4, ENC_BIG_ENDIAN, &payload_length);
  proto_tree_add_item_ret_uint64(data_tree, hf_rdcc_data_message_identifier, tvb, 8, 8,
                                 ENC_BIG_ENDIAN, &message_identifier);
  offset_item = proto_tree_add_item_ret_uint64(data_tree, hf_rdcc_data_offset, tvb, 16, 8,
                                               ENC_BIG_ENDIAN, &offset);
  col_add_fstr(pinfo->cinfo, COL_INFO,
               "%s id=0x%" G_GINT64_MODIFIER "x offset=%" G_GINT64_MODIFIER "u len=%u%s%s%s",
               (flags & RDCC_DATA_FLAG_NACK) ? "NACK" : "DATA", message_identifier, offset,
               payload_length, (flags & RDCC_DATA_FLAG_LAST) ? " LAST" : "",
               (flags & RDCC_DATA_FLAG_UNSCHEDULED) ? " UNSCHEDULED" : "",
               (flags & RDCC_DATA_FLAG_RECOVERS) ? " RECOVERS" : "");
  if (payload_length > packet - RDCC_DATA_HEADER_SIZE) {
    expert_add_info_format(pinfo, payload_length_item, &ei_rdcc_data_payload_beyond_packet,
                           "Payload Length %u is beyond the %u octets after the header",
                           payload_length, packet - RDCC_DATA_HEADER_SIZE);
    col_append_str(pinfo->cinfo, COL_INFO, " [payload beyond packet]");
    return (int)tvb_captured_length(tvb);
  }
  if (offset > G_MAXUINT64 - payload_length) {
    expert_add_info_format(pinfo, offset_item, &ei_rdcc_data_offset_overflow,
                           "Offset + Payload Length is above 2^64 - 1");
    col_append_str(pinfo->cinfo, COL_INFO, " [offset overflow]");
    return (int)tvb_captured_length(tvb);
  }
  proto_item_set_len(root, (gint)(RDCC_DATA_HEADER_SIZE + payload_length));
  /* Captures are often cut to a snap length: the payload shows what the capture holds. */
  captured = (guint)tvb_captured_length_remaining(tvb, RDCC_DATA_HEADER_SIZE);
  if (payload_length > 0 && captured > 0) {
    item = proto_tree_add_item(data_tree, hf_rdcc_data_payload, tvb, RDCC_DATA_HEADER_SIZE,
                               (gint)MIN(payload_length, captured), ENC_NA);
    if (captured < payload_length)
      proto_item_append_text(item, " (%u of %u octets captured)", captured, payload_length);
  }
  if (packet > RDCC_DATA_HEADER_SIZE + payload_length && captured > payload_length) {
    item = proto_tree_add_item(
        data_tree, hf_rdcc_data_trailing, tvb, (gint)(RDCC_DATA_HEADER_SIZE + payload_length),
        (gint)MIN(packet - RDCC_DATA_HEADER_SIZE - payload_length, captured - payload_length),
        ENC_NA);
    expert_add_info_format(pinfo, item, &ei_rdcc_data_trailing_octets,
                           "%u octets after the payload are not part of the packet",
                           packet - RDCC_DATA_HEADER_SIZE - payload_length);
  }
  return (int)tvb_captured_length(tvb);
}

void proto_register_rdcc_data(void) {
  static hf_register_info hf[] = {
      {&hf_rdcc_data_magic,
       {"Magic", "rdcc_data.magic", FT_UINT16, BASE_HEX, NULL, 0x0, "0x5244 (\"RD\")", HFILL}},
      {&hf_rdcc_data_version,
       {"Version", "rdcc_data.version", FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_data_flags,
       {"Flags", "rdcc_data.flags", FT_UINT8, BASE_HEX, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_data_flags_last,
       {"LAST", "rdcc_data.flags.last", FT_BOOLEAN, 8, TFS(&tfs_set_notset), RDCC_DATA_FLAG_LAST,
        "The payload ends the message", HFILL}},
      {&hf_rdcc_data_flags_unscheduled,
       {"UNSCHEDULED", "rdcc_data.flags.unscheduled", FT_BOOLEAN, 8, TFS(&tfs_set_notset),
        RDCC_DATA_FLAG_UNSCHEDULED, "Sent in unscheduled mode (informative)", HFILL}},
      {&hf_rdcc_data_flags_recovers,
       {"RECOVERS", "rdcc_data.flags.recovers", FT_BOOLEAN, 8, TFS(&tfs_set_notset),
        RDCC_DATA_FLAG_RECOVERS, "Its sender resends the octets a NACK names", HFILL}},
      {&hf_rdcc_data_flags_nack,
       {"NACK", "rdcc_data.flags.nack", FT_BOOLEAN, 8, TFS(&tfs_set_notset), RDCC_DATA_FLAG_NACK,
        "A NACK, receiver to sender: the payload is (start, end) ranges of missing octets", HFILL}},
      {&hf_rdcc_data_payload_length,
       {"Payload Length", "rdcc_data.payload_length", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_data_message_identifier,
       {"Message Identifier", "rdcc_data.message_identifier", FT_UINT64, BASE_HEX, NULL, 0x0,
        "The CREDIT_REQUEST's Binding Value", HFILL}},
      {&hf_rdcc_data_offset,
       {"Offset", "rdcc_data.offset", FT_UINT64, BASE_DEC, NULL, 0x0,
        "Octet offset of the first payload octet within the message", HFILL}},
      {&hf_rdcc_data_payload,
       {"Payload", "rdcc_data.payload", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL}},
      {&hf_rdcc_data_trailing,
       {"Octets after the payload", "rdcc_data.trailing", FT_BYTES, BASE_NONE, NULL, 0x0, NULL,
        HFILL}},
  };

  static gint* ett[] = {
      &ett_rdcc_data,
      &ett_rdcc_data_flags,
  };

  static ei_register_info ei[] = {
      {&ei_rdcc_data_truncated,
       {"rdcc_data.expert.truncated", PI_MALFORMED, PI_ERROR, "Packet ends inside the header",
        EXPFILL}},
      {&ei_rdcc_data_bad_magic,
       {"rdcc_data.expert.bad_magic", PI_MALFORMED, PI_ERROR, "Magic is not 0x5244", EXPFILL}},
      {&ei_rdcc_data_bad_version,
       {"rdcc_data.expert.bad_version", PI_MALFORMED, PI_ERROR, "Version is not 1", EXPFILL}},
      {&ei_rdcc_data_payload_beyond_packet,
       {"rdcc_data.expert.payload_beyond_packet", PI_MALFORMED, PI_ERROR,
        "Payload Length is beyond the packet", EXPFILL}},
      {&ei_rdcc_data_offset_overflow,
       {"rdcc_data.expert.offset_overflow", PI_MALFORMED, PI_ERROR,
        "Offset + Payload Length is above 2^64 - 1", EXPFILL}},
      {&ei_rdcc_data_undefined_flags,
       {"rdcc_data.expert.undefined_flags", PI_PROTOCOL, PI_NOTE, "Undefined flags are set",
        EXPFILL}},
      {&ei_rdcc_data_trailing_octets,
       {"rdcc_data.expert.trailing_octets", PI_PROTOCOL, PI_NOTE, "Octets after the payload",
        EXPFILL}},
  };

  expert_module_t* expert_rdcc_data;

  proto_rdcc_data = proto_register_protocol("RDCC Opaque Data Transport", "RDCC Data", "rdcc_data");
  proto_register_field_array(proto_rdcc_data, hf, array_length(hf));
  proto_register_subtree_array(ett, array_length(ett));
  expert_rdcc_data = expert_register_protocol(proto_rdcc_data);
  expert_register_field_array(expert_rdcc_data, ei, array_length(ei));
  rdcc_data_handle = register_dissector("rdcc_data", dissect_rdcc_data, proto_rdcc_data);
}

void proto_reg_handoff_rdcc_data(void) {
  /* No default port (the data port is configured per domain): Decode As, and the
   * rdcc_data.udp.port preference. */
  dissector_add_uint_range_with_preference("udp.port", "", rdcc_data_handle);
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
