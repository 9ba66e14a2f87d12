/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * format_json.c - the JSON form of a topology (a plan's, which may hold
 * a million ranks, is written as it goes: format_plan_json.c).  Its fields
 * are a contract, read by tools: they are only ever added.
 *
 * jansson leaves a member out, and says so only in a return value, when a
 * value could not be made: every member goes through put()/push(), and a
 * document missing one is not handed out (NULL, as for ENOMEM).  Its dump
 * ignores a failure to write an object's key (jansson 2.14, keys in
 * insertion order), so the text is collected here, where a failed append
 * is not forgotten (tests/unit/test_nomem).
 */
#include <stdbool.h>
#include <stdlib.h>

#include <jansson.h>

#include <numaplan/format.h>

#include "common/text.h"

/* o[key] = v (stolen); *bad when v is NULL (its making failed) or o cannot
 * take it */
static void put(json_t *o, const char *key, json_t *v, bool *bad)
{
	if (json_object_set_new(o, key, v) != 0)
		*bad = true;
}

static void push(json_t *a, json_t *v, bool *bad)
{
	if (json_array_append_new(a, v) != 0)
		*bad = true;
}

static int append(const char *buf, size_t len, void *data)
{
	np_sb_t *b = data;

	np_sb_addn(b, buf, len);
	return b->oom ? -1 : 0;
}

/* The text of root unless something is missing from it or from the text;
 * root is released. */
static char *dump(json_t *root, bool bad)
{
	np_sb_t b;

	np_sb_init(&b);
	if (bad || !root ||
	    json_dump_callback(root, append, &b, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
		b.oom = true;
	json_decref(root);
	return np_sb_take(&b);
}

static json_t *cpulist(const np_cpuset_t *s)
{
	char *txt = np_cpuset_format(s);
	json_t *j = txt ? json_string(txt) : NULL;

	free(txt);
	return j;
}

static json_t *device_json(const np_device_t *d, bool *bad)
{
	json_t *o = json_object(), *ports = json_array();
	unsigned port;
	char why[256], b[32];

	put(o, "name", json_string(d->name), bad);
	put(o, "kind", json_string(np_dev_kind_name(d->kind)), bad);
	put(o, "pci", d->pci_busid ? json_string(d->pci_busid) : json_null(), bad);
	put(o, "cpus", cpulist(d->cpus), bad);
	put(o, "numa", cpulist(d->numas), bad);
	put(o, "machine_root", json_boolean(d->at_root), bad);
	for (unsigned i = 0; i < d->nports; i++) {
		json_t *p = json_object();

		put(p, "port", json_integer(d->ports[i].num), bad);
		put(p, "state", d->ports[i].state >= 0 ? json_integer(d->ports[i].state) : json_null(), bad);
		put(p, "state_name", d->ports[i].state >= 0 ?
		                    json_string(np_port_state_name(d->ports[i].state, b, sizeof(b))) : json_null(), bad);
		put(p, "link_layer", d->ports[i].link != NP_LINK_UNKNOWN ?
		                    json_string(np_link_name(d->ports[i].link)) : json_null(), bad);
		put(p, "lid", d->ports[i].lid >= 0 ? json_integer(d->ports[i].lid) : json_null(), bad);
		push(ports, p, bad);
	}
	put(o, "ports", ports, bad);
	if (d->kind == NP_DEV_GPU)
		return o;
	put(o, "operstate", d->operstate ? json_string(d->operstate) : json_null(), bad);
	if (np_device_usable(d, 0, &port, why, sizeof(why))) {
		put(o, "usable", json_true(), bad);
		put(o, "unusable_reason", json_null(), bad);
	} else {
		put(o, "usable", json_false(), bad);
		put(o, "unusable_reason", json_string(why), bad);
	}
	return o;
}

/* A GPU: its device entry, plus what gpu-near reads of it and the
 * adapters it pairs with. */
static json_t *gpu_json(const np_topo_t *t, unsigned i, bool *bad)
{
	const np_gpu_t *g = &t->gpus[i];
	json_t *o = device_json(&t->devices[g->device], bad), *near = json_array();
	np_pci_level_t lv;
	int devs[16], n = np_topo_gpu_nearest(t, i, devs, 16, &lv);

	put(o, "index", json_integer(i), bad);
	put(o, "vendor", json_string(np_gpu_vendor_name(g->vendor)), bad);
	put(o, "pci_id", json_sprintf("%04x:%04x", g->vendor_id, g->device_id), bad);
	put(o, "osdevs", json_string(g->osdevs), bad);
	put(o, "partitions", json_integer(g->partitions), bad);
	put(o, "memory_numa", cpulist(g->mems), bad);
	if (n < 0)
		*bad = true;
	for (int k = 0; k < n && k < 16; k++)
		push(near, json_string(t->devices[devs[k]].name), bad);
	put(o, "nearest_adapters", near, bad);
	put(o, "meet", n > 0 ? json_string(np_pci_level_name(lv)) : json_null(), bad);
	return o;
}

char *np_topo_to_json(const np_topo_t *t)
{
	json_t *root = json_object(), *a;
	bool failed = false, *bad = &failed;

	put(root, "source", json_string(t->source), bad);
	put(root, "hostname", json_string(t->hostname), bad);
	put(root, "cpu_model", t->cpu_model ? json_string(t->cpu_model) : json_null(), bad);
	put(root, "allowed_cpus", cpulist(t->allowed), bad);
	put(root, "port_states", json_string(t->ports_from ? t->ports_from : "topology"), bad);
	put(root, "npus", json_integer(t->npus), bad);
	put(root, "ncores", json_integer(t->ncores), bad);
	a = json_array();
	for (unsigned i = 0; i < t->npackages; i++) {
		json_t *o = json_object();

		put(o, "os_index", json_integer(t->packages[i].os_index), bad);
		put(o, "cpus", cpulist(t->packages[i].cpus), bad);
		push(a, o, bad);
	}
	put(root, "packages", a, bad);
	a = json_array();
	for (unsigned i = 0; i < t->nnuma; i++) {
		json_t *o = json_object();
		const np_numa_t *n = &t->numa[i];

		put(o, "os_index", json_integer(n->os_index), bad);
		put(o, "package", n->package >= 0 && (unsigned)n->package < t->npackages ?
		                    json_integer(t->packages[n->package].os_index) : json_null(), bad);
		put(o, "cpus", cpulist(n->cpus), bad);
		put(o, "ncores", json_integer(n->ncores), bad);
		put(o, "memory", json_integer((json_int_t)n->memory), bad);
		put(o, "kind", json_string(np_memkind_name(n->kind)), bad);
		put(o, "subtype", n->subtype ? json_string(n->subtype) : json_null(), bad);
		put(o, "memory_tier", n->memory_tier >= 0 ? json_integer(n->memory_tier) : json_null(), bad);
		put(o, "locality", cpulist(n->locality), bad);
		push(a, o, bad);
	}
	put(root, "numa", a, bad);
	a = json_array();
	for (unsigned i = 0; i < t->nl3; i++) {
		json_t *o = json_object();

		put(o, "cpus", cpulist(t->l3[i].cpus), bad);
		put(o, "size", json_integer((json_int_t)t->l3[i].size), bad);
		put(o, "numa", t->l3[i].numa >= 0 && (unsigned)t->l3[i].numa < t->nnuma ?
		                    json_integer(t->numa[t->l3[i].numa].os_index) : json_null(), bad);
		push(a, o, bad);
	}
	put(root, "l3", a, bad);
	a = json_array();
	for (unsigned i = 0; i < t->ndevices; i++)
		if (t->devices[i].kind != NP_DEV_GPU)
			push(a, device_json(&t->devices[i], bad), bad);
	put(root, "devices", a, bad);
	a = json_array();
	for (unsigned i = 0; i < t->ngpus; i++)
		push(a, gpu_json(t, i, bad), bad);
	put(root, "gpus", a, bad);
	if (t->distances) {
		json_t *m = json_array();

		for (unsigned i = 0; i < t->nnuma; i++) {
			json_t *row = json_array();

			for (unsigned j = 0; j < t->nnuma; j++)
				push(row, json_integer((json_int_t)t->distances[i * t->nnuma + j]), bad);
			push(m, row, bad);
		}
		put(root, "distances", m, bad);
		put(root, "distances_name", json_string(t->distances_name), bad);
	} else {
		put(root, "distances", json_null(), bad);
	}
	return dump(root, failed);
}
