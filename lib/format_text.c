/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * format_text.c - the human forms: `numaplan topo` and the plan table.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numaplan/format.h>

#include "format_internal.h"

static void human_bytes(char *buf, size_t n, uint64_t v)
{
	if (v == 0)
		snprintf(buf, n, "?");
	else if (v >= (UINT64_C(1) << 30))
		snprintf(buf, n, "%.1f GiB", (double)v / (double)(UINT64_C(1) << 30));
	else if (v >= (UINT64_C(1) << 20))
		snprintf(buf, n, "%.0f MiB", (double)v / (double)(UINT64_C(1) << 20));
	else
		snprintf(buf, n, "%.0f KiB", (double)v / 1024.0);
}

static void put_set(FILE *f, const char *fmt, const np_cpuset_t *s)
{
	char *txt = np_cpuset_format(s);

	fprintf(f, fmt, txt ? txt : "?");
	free(txt);
}

static void write_devices(FILE *f, const np_topo_t *t, int gpus)
{
	for (unsigned i = 0; i < t->ndevices; i++) {
		const np_device_t *d = &t->devices[i];

		if ((d->kind == NP_DEV_GPU) != gpus)
			continue;
		fprintf(f, "  %-12s %-11s %-13s", d->name, np_dev_kind_name(d->kind),
		        d->pci_busid ? d->pci_busid : "-");
		if (d->at_root)
			fprintf(f, " numa all (attached to the machine root)");
		else
			put_set(f, " numa %s", d->numas);
		put_set(f, " cpus %s", d->cpus);
		for (unsigned p = 0; p < d->nports; p++) {
			char b[32];

			fprintf(f, "%s%u", p ? ", " : "  port ", d->ports[p].num);
			if (d->ports[p].state >= 0)
				fprintf(f, " %s", np_port_state_name(d->ports[p].state, b, sizeof(b)));
			if (d->ports[p].link != NP_LINK_UNKNOWN)
				fprintf(f, " %s", np_link_name(d->ports[p].link));
			if (d->ports[p].lid >= 0)
				fprintf(f, " lid %ld", d->ports[p].lid);
		}
		if (d->operstate)
			fprintf(f, "  link %s", d->operstate);
		if (!gpus) {
			char why[256];
			unsigned port;

			if (!np_device_usable(d, 0, &port, why, sizeof(why)))
				fprintf(f, "  [not usable: %s]", why);
		}
		fputc('\n', f);
	}
}

static void write_gpus(FILE *f, const np_topo_t *t)
{
	for (unsigned i = 0; i < t->ngpus; i++) {
		const np_gpu_t *g = &t->gpus[i];

		fprintf(f, "  %-3u %-12s %-6s %-12s", i, g->pci_busid, np_gpu_vendor_name(g->vendor),
		        t->devices[g->device].name);
		if (g->at_root)
			fprintf(f, " numa all (attached to the machine root)");
		else
			put_set(f, " numa %s", g->numas);
		put_set(f, " cpus %s", g->cpus);
		if (!np_cpuset_iszero(g->mems))
			put_set(f, " gpu-memory numa %s", g->mems);
		if (g->osdevs[0])
			fprintf(f, "  [%s]", g->osdevs);
		if (g->partitions > 1)
			fprintf(f, " %u partitions", g->partitions);
		fputc('\n', f);
	}
}

/* Each GPU's nearest usable adapter(s) and where they meet, as gpu-near
 * pairs them. */
static void write_pairing(FILE *f, const np_topo_t *t)
{
	int devs[8];
	bool mems = false;

	/* the gpu-mem column only where some GPU has memory nodes of its own,
	 * so that other nodes' tables keep their shape */
	for (unsigned i = 0; i < t->ngpus; i++)
		mems = mems || !np_cpuset_iszero(t->gpus[i].mems);
	fprintf(f, "\nGPU-to-adapter pairing (nearest usable adapter; where they meet%s):\n",
	        mems ? "; the GPU's own memory nodes" : "");
	fprintf(f, "  %-3s %-12s %-24s %s%s\n", "gpu", "pci", "adapter", mems ? "meet       " : "meet",
	        mems ? "gpu-mem" : "");
	for (unsigned i = 0; i < t->ngpus; i++) {
		np_pci_level_t lv;
		int n = np_topo_gpu_nearest(t, i, devs, 8, &lv);
		char list[256] = "-";
		char *own = mems && !np_cpuset_iszero(t->gpus[i].mems) ? np_cpuset_format(t->gpus[i].mems) : NULL;
		size_t len = 0;

		for (int k = 0; k < n && k < 8 && len < sizeof(list); k++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", k ? "|" : "",
			                        t->devices[devs[k]].name);
		if (mems)
			fprintf(f, "  %-3u %-12s %-24s %-10s %s\n", i, t->gpus[i].pci_busid, list,
			        n > 0 ? np_pci_level_name(lv) : "-", own ? own : "-");
		else
			fprintf(f, "  %-3u %-12s %-24s %s\n", i, t->gpus[i].pci_busid, list,
			        n > 0 ? np_pci_level_name(lv) : "-");
		free(own);
	}
}

int np_topo_write_text(FILE *f, const np_topo_t *t)
{
	char mem[32];
	unsigned nnet = t->ndevices - t->ngpus;

	fprintf(f, "Topology: %s (host %s)\n", t->source, t->hostname);
	if (t->cpu_model)
		fprintf(f, "CPU: %s\n", t->cpu_model);
	fprintf(f, "%u packages, %u NUMA nodes, %u L3 domains, %u cores, %u PUs",
	        t->npackages, t->nnuma, t->nl3, t->ncores, t->npus);
	put_set(f, " (allowed PUs %s)\n", t->allowed);
	fprintf(f, "\nPackages:\n");
	for (unsigned i = 0; i < t->npackages; i++) {
		fprintf(f, "  P#%-3u", t->packages[i].os_index);
		put_set(f, " cpus %s\n", t->packages[i].cpus);
	}
	fprintf(f, "\nNUMA nodes:\n");
	for (unsigned i = 0; i < t->nnuma; i++) {
		const np_numa_t *n = &t->numa[i];

		char pk[16] = "-";

		if (n->package >= 0 && (unsigned)n->package < t->npackages)
			snprintf(pk, sizeof(pk), "%u", t->packages[n->package].os_index);
		human_bytes(mem, sizeof(mem), n->memory);
		fprintf(f, "  P#%-3u package %-3s %3u cores  memory %-10s %-9s", n->os_index, pk,
		        n->ncores, mem, np_memkind_name(n->kind));
		if (n->memory_tier >= 0)
			fprintf(f, " tier %d", n->memory_tier);
		if (np_cpuset_iszero(n->cpus) && np_cpuset_iszero(n->locality))
			fprintf(f, " no CPUs (memory only)\n");
		else if (np_cpuset_iszero(n->cpus))
			put_set(f, " no CPUs (memory only), attached with cpus %s\n", n->locality);
		else
			put_set(f, " cpus %s\n", n->cpus);
	}
	fprintf(f, "\nL3 domains: %u\n", t->nl3);
	for (unsigned i = 0; i < t->nl3; i++) {
		human_bytes(mem, sizeof(mem), t->l3[i].size);
		fprintf(f, "  L3#%-3u %-9s numa %-3d %3u cores", i, mem,
		        t->l3[i].numa >= 0 && (unsigned)t->l3[i].numa < t->nnuma ? (int)t->numa[t->l3[i].numa].os_index : -1, t->l3[i].ncores);
		put_set(f, " cpus %s\n", t->l3[i].cpus);
	}
	fprintf(f, "\nNetwork devices: %u (port states %s%s)\n", nnet,
	        t->ports_from ? "read from " : "as recorded in the topology",
	        t->ports_from ? t->ports_from : "");
	write_devices(f, t, 0);
	if (t->ngpus) {
		fprintf(f, "\nGPUs: %u (in PCI bus id order: the indexes of CUDA_DEVICE_ORDER=PCI_BUS_ID and Slurm)\n",
		        t->ngpus);
		write_gpus(f, t);
		write_pairing(f, t);
	}
	if (t->distances) {
		fprintf(f, "\nNUMA distances (%s):\n     ", t->distances_name ? t->distances_name : "");
		for (unsigned j = 0; j < t->nnuma; j++)
			fprintf(f, " %4u", t->numa[j].os_index);
		fputc('\n', f);
		for (unsigned i = 0; i < t->nnuma; i++) {
			fprintf(f, "  %3u", t->numa[i].os_index);
			for (unsigned j = 0; j < t->nnuma; j++)
				fprintf(f, " %4llu", (unsigned long long)t->distances[i * t->nnuma + j]);
			fputc('\n', f);
		}
	} else {
		fprintf(f, "\nNUMA distances: none in this topology\n");
	}
	return ferror(f) ? -1 : 0;
}

int np_plan_write_table(FILE *f, const np_topo_t *t, const np_plan_t *p)
{
	(void)t;
	fprintf(f, "policy %s", np_policy_name(p->policy));
	if (p->policy != p->requested)
		fprintf(f, " (requested %s)", np_policy_name(p->requested));
	fprintf(f, ", %u tasks, %u cpus per task%s%s\n", p->nranks, p->cpus_per_task,
	        p->threads ? ", threads" : "", p->overcommitted ? ", OVERCOMMITTED" : "");
	if (p->note)
		fprintf(f, "note: %s\n", p->note);
	for (unsigned i = 0; i < p->nskipped; i++)
		fprintf(f, "skipped: %s (%s)\n", p->skipped[i].name, p->skipped[i].reason);
	for (unsigned i = 0; i < p->nunused; i++)
		fprintf(f, "unused: %s (no rank uses it)\n", p->unused[i]);
	fprintf(f, "%-5s %-12s %-24s %-10s %-11s %s%s\n", "rank", "host", "cpus", "mems", "mem", "hca",
	        p->policy == NP_POLICY_GPU_NEAR ? "                gpu" : "");
	for (unsigned i = 0; i < p->nranks; i++) {
		const np_rank_t *r = &p->ranks[i];
		char *cpus = np_cpuset_format(r->cpus), *mems = np_cpuset_format(r->mems);

		fprintf(f, "%-5u %-12s %-24s %-10s %-11s", r->rank, r->host,
		        r->bound ? (cpus ? cpus : "?") : "(unbound)",
		        mems && mems[0] ? mems : "-", np_mem_name(r->mem));
		if (r->nhcas > 1) {
			fputc(' ', f);
			/* an interface (Slingshot, Ethernet) has no port: 0 */
			for (unsigned k = 0; k < r->nhcas; k++)
				fprintf(f, r->hca_ports[k] ? "%s%s:%u" : "%s%s", k ? "," : "", r->hcas[k],
				        r->hca_ports[k]);
			fprintf(f, "%s", r->hca_local ? " (local)" : " (remote)");
		} else if (r->hca && r->port)
			fprintf(f, " %s:%u%s", r->hca, r->port, r->hca_local ? " (local)" : " (remote)");
		else if (r->hca)
			fprintf(f, " %s%s", r->hca, r->hca_local ? " (local)" : " (remote)");
		else
			fprintf(f, " -");
		/* a GPU's partitions once, with their count: "0002:02:00.0 x6" */
		for (unsigned k = 0, n; k < r->ngpus; k += n) {
			for (n = 1; k + n < r->ngpus && !strcmp(r->gpus[k + n], r->gpus[k]); n++)
				;
			fprintf(f, "%s%s", k ? "," : "  gpu ", r->gpus[k]);
			if (n > 1)
				fprintf(f, " x%u", n);
		}
		if (r->ngpus)
			fprintf(f, "%s", r->gpu_local ? " (local)" : " (remote)");
		fputc('\n', f);
		free(cpus);
		free(mems);
	}
	return ferror(f) ? -1 : 0;
}
