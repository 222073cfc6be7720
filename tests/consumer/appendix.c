/* Decodes the two encodings of the spec's "Example Exchange and Encodings" with the installed
 * codec's C API, prints each field the appendix's prose gives, re-encodes them octet for
 * octet, and shows a decode error. Exit 0 only if everything is as the appendix says. */
#include <rdcc/codec.h>
#include <stdio.h>
#include <string.h>

static const uint8_t kRequest[] = {
    0x10, 0x03, 0x00, 0x38, 0x5a, 0x17, 0xc0, 0xde, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x04,
    0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x23, 0x00, 0x00, 0x05, 0x00, 0x10};
static const uint8_t kGrant[] = {0x10, 0x04, 0x00, 0x28, 0x5a, 0x17, 0xc0, 0xde, 0x00, 0x03,
                                 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x00,
                                 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04,
                                 0x00, 0x00, 0x00, 0x01, 0x86, 0xa0, 0x00, 0x00, 0x07, 0xd0};

static int failures = 0;
#define CHECK(cond)                                             \
  do {                                                          \
    if (!(cond)) {                                              \
      fprintf(stderr, "FAIL: %s (line %d)\n", #cond, __LINE__); \
      ++failures;                                               \
    }                                                           \
  } while (0)

static void round_trip(const uint8_t* wire, size_t size, const struct rdcc_message* m) {
  uint8_t out[64];
  size_t written = 0;
  struct rdcc_error e;
  CHECK(rdcc_encode(m, out, sizeof out, &written, &e) == RDCC_OK);
  CHECK(written == size && memcmp(out, wire, size) == 0);
}

int main(void) {
  struct rdcc_message m;
  struct rdcc_error e;
  char line[256];

  printf("librdcc-codec %s (header %s)\n", rdcc_version(), RDCC_VERSION);
  CHECK(strcmp(rdcc_version(), RDCC_VERSION) == 0);

  CHECK(rdcc_decode(kRequest, sizeof kRequest, &m, &e) == RDCC_OK);
  CHECK(m.type == RDCC_CREDIT_REQUEST);
  CHECK(m.header.association_id == 0x5a17c0deu && m.header.epoch == 3);
  CHECK(m.body.credit_request.message_id == 0x101u);
  CHECK(m.body.credit_request.message_length == 4u * 1024u * 1024u);
  CHECK(m.body.credit_request.traffic_class == 2 && m.body.credit_request.weight == 4);
  rdcc_format_line(&m, line, sizeof line);
  printf("%s\n", line);
  round_trip(kRequest, sizeof kRequest, &m);

  CHECK(rdcc_decode(kGrant, sizeof kGrant, &m, &e) == RDCC_OK);
  CHECK(m.type == RDCC_CREDIT_GRANT);
  CHECK(m.header.sequence_number == 42);
  CHECK(m.body.credit_grant.grant_limit == 262144u);
  CHECK(m.body.credit_grant.pacing_rate == 100000u);
  CHECK(m.body.credit_grant.lifetime == 2000u);
  rdcc_format_line(&m, line, sizeof line);
  printf("%s\n", line);
  round_trip(kGrant, sizeof kGrant, &m);

  /* The grant cut to 39 octets: its Length (40) is beyond the datagram. */
  CHECK(rdcc_decode(kGrant, sizeof kGrant - 1, &m, &e) == RDCC_E_LENGTH_BEYOND_DATAGRAM);
  CHECK(strcmp(e.field, "length") == 0 && e.offset == 2);
  printf("error: %s\n", e.message);

  if (failures != 0) fprintf(stderr, "%d checks failed\n", failures);
  return failures == 0 ? 0 : 1;
}
