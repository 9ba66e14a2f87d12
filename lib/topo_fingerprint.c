/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_fingerprint.c - a digest of what the planner reads of a node, so
 * that the nodes of a partition can be grouped into node types and planned
 * once per type.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numaplan/topo.h>

typedef struct fnv {
	uint64_t h;
} fnv_t;

/* FNV-1a: no cryptographic claim; it only has to tell node types apart. */
static void add(fnv_t *f, const char *s)
{
	for (; s && *s; s++) {
		f->h ^= (unsigned char)*s;
		f->h *= 0x100000001b3ULL;
	}
	f->h ^= 0xff;           /* a separator no text contains */
	f->h *= 0x100000001b3ULL;
}

static void addf(fnv_t *f, const char *fmt, unsigned long long v)
{
	char b[32];

	snprintf(b, sizeof(b), fmt, v);
	add(f, b);
}

static void add_set(fnv_t *f, const np_cpuset_t *s)
{
	char *t = s ? np_cpuset_format(s) : NULL;

	add(f, t ? t : "-");
	free(t);
}

/*
 * The L3 domains by the sizes they come in, not by their CPUs.  A VM's
 * hwloc may show the caches of the CPUs a cgroup allows and no others:
 * where each core has its own L3, a step on CPU 0 sees one L3 of CPU 0
 * and a step on CPU 1 one of CPU 1.  The sizes are the hardware's in
 * every such view; which CPUs an L3 holds is not.
 */
static void add_l3_sizes(fnv_t *f, const np_topo_t *t)
{
	unsigned i, j, k, n = 0, sizes[64];

	for (i = 0; i < t->nl3; i++) {
		unsigned w = np_cpuset_count(t->l3[i].cpus);
		for (j = 0; j < n && sizes[j] < w; j++)
			;
		if ((j < n && sizes[j] == w) || n == sizeof(sizes) / sizeof(sizes[0]))
			continue;
		for (k = n++; k > j; k--)
			sizes[k] = sizes[k - 1];
		sizes[j] = w;
	}
	add(f, "L3");
	for (i = 0; i < n; i++)
		addf(f, "%llu", (unsigned long long)sizes[i]);
}

void np_topo_fingerprint(const np_topo_t *t, char out[NP_FINGERPRINT_LEN])
{
	fnv_t f = { 0xcbf29ce484222325ULL };
	unsigned i, j;

	/* the node, never the CPUs this process may use: two nodes of one
	 * model probed in steps on different CPUs are one node type, and
	 * the allowed set is applied when a plan is made */
	add(&f, t->cpu_model ? t->cpu_model : "-");
	add_set(&f, t->complete);
	for (i = 0; i < t->npackages; i++) {
		addf(&f, "P%llu", t->packages[i].os_index);
		add_set(&f, t->packages[i].cpus);
	}
	for (i = 0; i < t->nnuma; i++) {
		addf(&f, "N%llu", t->numa[i].os_index);
		addf(&f, "p%llu", (unsigned long long)(t->numa[i].package + 1));
		add_set(&f, t->numa[i].cpus);
		/* what memory it is, and where, decides mem=KIND plans; only
		 * for memory that is not plain DRAM, so that the digest of a
		 * node without such memory is what it was before kinds */
		if (t->numa[i].kind != NP_MEMKIND_DRAM) {
			add(&f, np_memkind_name(t->numa[i].kind));
			add_set(&f, t->numa[i].locality);
		}
	}
	add_l3_sizes(&f, t);
	for (i = 0; i < t->ncores; i++) {
		addf(&f, "C%llu", t->cores[i].os_index);
		for (j = 0; j < t->cores[i].npus; j++)
			addf(&f, "%llu", t->cores[i].pus[j]);
	}
	/* adapters and GPUs by name, kind and locality; never their port
	 * states, which differ between identical nodes */
	for (i = 0; i < t->ndevices; i++) {
		add(&f, t->devices[i].name);
		add(&f, np_dev_kind_name(t->devices[i].kind));
		add_set(&f, t->devices[i].numas);
		addf(&f, "r%llu", t->devices[i].at_root);
	}
	/* a GPU's own memory nodes change gpu-near's memory binding; only
	 * when there are some, so that other nodes' digests stay as they were */
	for (i = 0; i < t->ngpus; i++)
		if (t->gpus[i].mems && !np_cpuset_iszero(t->gpus[i].mems)) {
			add(&f, t->gpus[i].pci_busid);
			add_set(&f, t->gpus[i].mems);
		}
	if (t->distances)
		for (i = 0; i < t->nnuma * t->nnuma; i++)
			addf(&f, "%llu", (unsigned long long)t->distances[i]);
	snprintf(out, NP_FINGERPRINT_LEN, "%016" PRIx64, f.h);
}
