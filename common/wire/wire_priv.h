/* SPDX-License-Identifier: MIT */
/*
 * The wire codec's insides, shared by its files: wire.c (the envelope and most bodies),
 * wire_result.c (a drive's result, the largest body) and wire_base.c (what they share:
 * the block list, identities). Private to common/wire/wire*.c; calls go wire.c ->
 * wire_result.c -> wire_base.c.
 */
#ifndef RB_WIRE_PRIV_H
#define RB_WIRE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rackbench.pb-c.h"
#include "wire.h"

/* Blocks allocated for one message, freed together. */
struct pool {
	void **v;
	size_t n, cap;
	bool failed;
	bool over;	/* decoding: past what the decoder may use for one message */
	size_t *budget; /* decoding: the bytes it may still use; NULL unbounded */
};

/* n + 1 zeroed elements of size on the message's list; NULL (p->failed) past its budget */
#define pool_alloc rb_wire_pool_alloc
void *pool_alloc(struct pool *p, size_t n, size_t size);

/* sending: a string as protobuf-c wants it (NULL is "") */
static inline char *str_out(const char *s)
{
	return (char *)(s ? s : "");
}

#define ident_out rb_wire_ident_out
#define idents_out rb_wire_idents_out
#define idents_in rb_wire_idents_in
#define settings_out rb_wire_settings_out
#define settings_in rb_wire_settings_in
#define result_out rb_wire_result_out
#define result_in rb_wire_result_in
Rb__TargetInfo *ident_out(struct pool *p, const struct rb_identity *x);
Rb__TargetInfo **idents_out(struct pool *p, const struct rb_identity *v, size_t n);
struct rb_identity *idents_in(struct pool *p, Rb__TargetInfo *const *v, size_t n);
/* Settings (key = value text), both ways. */
Rb__Setting **settings_out(struct pool *p, const struct rb_kv *v, size_t n);
struct rb_kv *settings_in(struct pool *p, Rb__Setting **v, size_t n);

/* receiving: a histogram's index and count arrays, as long as the shorter */
static inline struct rb_sparse sparse_in(const uint32_t *idx, size_t nidx, const uint64_t *cnt,
					 size_t ncnt)
{
	return (struct rb_sparse){ idx, cnt, nidx < ncnt ? nidx : ncnt };
}

/*
 * An envelope of samples in the shape every encoder writes, decoded without protobuf-c
 * (wire_samples.c): 0 decoded into m (its block on p), 1 not that shape (the generic
 * decoder decides), -ENOMEM.
 */
int rb_wire_samples_in(struct pool *p, const uint8_t *buf, size_t len, struct rb_msg *m);
/* ... and encoded so (the bytes protobuf-c would write): 0, -EMSGSIZE or -ENOMEM. */
int rb_wire_samples_out(const struct rb_msg *m, uint8_t **ret_buf, size_t *ret_len);

/* A drive's result (wire_result.c). */
Rb__DriveResult *result_out(struct pool *p, const struct rb_msg_result *m);
void result_in(struct pool *p, struct rb_msg_result *m, const Rb__DriveResult *r);
/* A piece of a drive's evidence (wire_result.c). */
#define evidence_data_out rb_wire_evidence_data_out
#define evidence_data_in rb_wire_evidence_data_in
Rb__EvidenceData *evidence_data_out(struct pool *p, const struct rb_msg_evidence_data *m);
void evidence_data_in(struct rb_msg_evidence_data *m, const Rb__EvidenceData *e);
/* A Capture order and its answer (wire_result.c). */
#define capture_out rb_wire_capture_out
#define captured_out rb_wire_captured_out
#define captured_in rb_wire_captured_in
Rb__Capture *capture_out(struct pool *p, const struct rb_msg_capture *m);
Rb__Captured *captured_out(struct pool *p, const struct rb_msg_captured *m);
void captured_in(struct pool *p, struct rb_msg_captured *m, const Rb__Captured *c);

#endif
