/* SPDX-License-Identifier: MIT */
/*
 * The wire codec: packs and unpacks rb.Envelope messages (proto/rackbench.proto).
 * This is the one module that translates protobuf-c's conventions; the generated
 * types are reached through this header only. Unpacking enforces a maximum message
 * size before decoding, decodes with a size-bounded allocator, and checks the
 * protocol version (a different major is refused with both versions named).
 */
#ifndef RB_WIRE_H
#define RB_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rackbench.pb-c.h"

#define RB_PROTO_MAJOR 1
#define RB_PROTO_MINOR 3
#define RB_WIRE_MAX_BYTES (16u << 20)
/* memory the decoder may use for one message */
#define RB_WIRE_DECODE_BUDGET (64u << 20)

/* Initializes e as an empty envelope with this side's protocol version. */
void rb_wire_init(Rb__Envelope *e);
/* Packs e into a new buffer the caller frees. Returns 0 or -ENOMEM / -EMSGSIZE. */
int rb_wire_pack(const Rb__Envelope *e, uint8_t **ret_buf, size_t *ret_len);
/*
 * Decodes buf. Returns 0 and a message to release with rb_wire_free(), or
 * -EMSGSIZE (too large), -EBADMSG (not a valid envelope, or no body),
 * -EPROTONOSUPPORT (another major version); err says which.
 */
int rb_wire_unpack(const uint8_t *buf, size_t len, Rb__Envelope **ret, char *err, size_t errlen);
void rb_wire_free(Rb__Envelope *e);
/* Name of the body type, for messages ("hello", "samples", ...). */
const char *rb_wire_body_name(const Rb__Envelope *e);
/* The message as JSON object members (epoch, seq, body, and for samples each sample's
 * key; for results and PointDone the point): `rackbench-agent spool`, `rackbench journal`. */
void rb_wire_json_fields(FILE *out, const Rb__Envelope *e);

#endif
