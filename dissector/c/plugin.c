/* plugin.c
 * Registers the RDCC dissector and the dissector of the toolkit's opaque data transport as a
 * Wireshark epan plugin (the file Wireshark's build generates for in-tree plugins, written out
 * for an out-of-tree build).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#define WS_BUILD_DLL
#include <epan/proto.h>
#include <wireshark.h>

#ifndef RDCC_PLUGIN_VERSION
#error "RDCC_PLUGIN_VERSION must be defined by the build"
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = RDCC_PLUGIN_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void proto_register_rdcc(void);
void proto_reg_handoff_rdcc(void);
void proto_register_rdcc_data(void);
void proto_reg_handoff_rdcc_data(void);

void plugin_register(void) {
  static proto_plugin plug_rdcc;
  static proto_plugin plug_rdcc_data;

  plug_rdcc.register_protoinfo = proto_register_rdcc;
  plug_rdcc.register_handoff = proto_reg_handoff_rdcc;
  proto_register_plugin(&plug_rdcc);
  plug_rdcc_data.register_protoinfo = proto_register_rdcc_data;
  plug_rdcc_data.register_handoff = proto_reg_handoff_rdcc_data;
  proto_register_plugin(&plug_rdcc_data);
}
