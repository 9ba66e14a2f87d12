/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit_devices.c - the adapter and GPUs each task of a job holds open,
 * against those its plan gave it.
 *
 * A task is a rank of a step on a node, with every process it started
 * (np_audit_plan_of): what any of them holds open, the task holds.  The
 * plan is the SPANK plugin's record of the task (else, for a step with
 * no records, its environment at exec): the adapter ("mlx5_0:1", as
 * NUMAPLAN_HCA) and the GPUs (PCI bus ids, as NUMAPLAN_GPUS).  The variables the plan gives the libraries (UCX_NET_DEVICES,
 * CUDA_VISIBLE_DEVICES, ...) are not the plan: a user's value wins
 * there, and that is what the audit is to catch.
 *
 * Each of NIC and GPU is, per task (np_devopen_judge):
 *   match           it holds what the plan says, and nothing else
 *   mismatch        it holds others, none of the plan's   (a deviation)
 *   extra           the plan's and others besides          (a deviation)
 *   none-open       the plan names one, it holds none yet (not a match)
 *   unreadable      its descriptors could not be read, or some of them
 *                   not looked at, and nothing held proves a deviation
 *   no-device-file  the planned adapter has no device file to hold (an
 *                   Ethernet interface, FI_TCP_IFACE): it cannot be seen
 *   -               no plan for it (what it holds is shown all the same)
 * and a planned adapter whose port is not ACTIVE is a deviation,
 * port-down, whatever the task holds.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "audit.h"
#include "common/json_get.h"
#include "common/text.h"
#include "sysread/open_devices.h"

/* "mlx5_0:1" -> adapter "mlx5_0", port 1 (0 when none is given) */
static void split_hca(const char *hca, char *name, size_t n, unsigned *port)
{
	const char *c = strchr(hca, ':');

	snprintf(name, n, "%.*s", (int)(c ? (size_t)(c - hca) : strlen(hca)), hca);
	*port = c ? (unsigned)atoi(c + 1) : 0;
}

static void set_add(json_t *set, const char *s)
{
	char low[64];
	size_t i;

	for (i = 0; s[i] && i < sizeof(low) - 1; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	low[i] = '\0';
	if (low[0])
		json_object_set_new(set, low, json_true());
}

static char *set_text(json_t *set)
{
	np_sb_t b;
	const char *k;
	json_t *v;

	np_sb_init(&b);
	np_sb_add(&b, "");
	json_object_foreach(set, k, v)
		np_sb_printf(&b, "%s%s", b.len ? "," : "", k);
	return np_sb_take(&b);
}

static json_t *port_of(json_t *ports, const char *adapter, unsigned port)
{
	json_t *p;
	size_t i;

	json_array_foreach(ports, i, p)
		if (np_json_streq(p, "adapter", adapter) &&
		    (port ? json_integer_value(json_object_get(p, "port")) == port : true))
			return p;
	return NULL;
}

/* Whether the node has a device file for this adapter: an RDMA adapter
 * with ports, or a Slingshot cxiN. */
static bool has_device_file(json_t *ports, const char *adapter)
{
	return port_of(ports, adapter, 0) || (strncmp(adapter, "cxi", 3) == 0 && isdigit((unsigned char)adapter[3]));
}

static void deviation(json_t *devs, const char *node, json_t *t, const char *kind, const char *expected,
                      const char *found)
{
	json_array_append_new(devs, json_pack("{s:s, s:s, s:s, s:O, s:O, s:s, s:s, s:s, s:s, s:s}", "node", node,
	                      "step", np_json_str(t, "step"), "rank", np_json_str(t, "rank"), "pid",
	                      json_object_get(t, "pid"), "tid", json_object_get(t, "pid"), "comm",
	                      np_json_str(t, "comm"), "kind", kind, "expected", expected, "found", found, "plan",
	                      np_json_str(t, "policy")));
}

static void count(json_t *summary, const char *key)
{
	json_object_set_new(summary, key, json_integer(json_integer_value(json_object_get(summary, key)) + 1));
}

/* The tasks of one node: {"step/rank": {step, rank, pid, comm, policy,
 * hca, gpus, nic_open {}, gpu_open {}, kfd, unreadable}} */
static json_t *tasks_of(json_t *n)
{
	json_t *tasks = json_object(), *p, *d;
	size_t i, k;

	json_array_foreach(json_object_get(n, "processes"), i, p) {
		json_t *pl = json_object_get(p, "plan"), *t, *devices = json_object_get(p, "devices");
		const char *rank = np_json_str(pl, "rank");
		char *key;

		if (!*rank || !(key = np_strdup_printf("%s/%s", np_json_str(p, "step"), rank)))
			continue;
		if (!(t = json_object_get(tasks, key))) {
			t = json_pack("{s:s, s:s, s:O, s:s, s:s, s:s, s:s, s:o, s:o, s:b, s:b}", "step",
			              np_json_str(p, "step"), "rank", rank, "pid", json_object_get(p, "pid"), "comm",
			              np_json_str(p, "comm"), "policy", np_json_str(pl, "policy"), "hca",
			              np_json_str(pl, "hca"), "gpus", np_json_str(pl, "gpus"),
			              "nic_open", json_object(), "gpu_open", json_object(), "kfd", 0, "unreadable", 0);
			json_object_set_new(tasks, key, t);
		}
		free(key);
		if (!t)
			continue;
		/* the task's first process is the one its lines name */
		if (json_integer_value(json_object_get(p, "pid")) < json_integer_value(json_object_get(t, "pid"))) {
			json_object_set(t, "pid", json_object_get(p, "pid"));
			json_object_set_new(t, "comm", json_string(np_json_str(p, "comm")));
		}
		/* a descriptor not looked at may be any device: no match */
		if (!json_is_array(devices) || json_integer_value(json_object_get(p, "devices_unreadable")) > 0)
			json_object_set_new(t, "unreadable", json_true());
		json_array_foreach(devices, k, d) {
			const char *kind = np_json_str(d, "kind"), *pci = np_json_str(d, "pci");
			if (strcmp(kind, "rdma") == 0 || strcmp(kind, "cxi") == 0)
				set_add(json_object_get(t, "nic_open"), np_json_str(d, "name"));
			else if (strcmp(kind, "kfd") == 0)
				json_object_set_new(t, "kfd", json_true());
			else
				/* a GPU by its bus id, as the plan names it; by its
				 * node when the driver does not say */
				set_add(json_object_get(t, "gpu_open"), *pci ? pci : np_json_str(d, "name"));
		}
	}
	return tasks;
}

json_t *np_audit_devices(json_t *nodes, json_t *devs, json_t *summary)
{
	json_t *out = json_array(), *n;
	size_t i;

	json_object_set_new(summary, "device_unverified", json_integer(0));
	json_array_foreach(nodes, i, n) {
		const char *node = np_json_str(n, "node"), *key;
		json_t *tasks = tasks_of(n), *t, *ports = json_object_get(n, "ports");

		json_object_foreach(tasks, key, t) {
			const char *hca = np_json_str(t, "hca"), *nic, *gpu;
			char adapter[64];
			unsigned port;
			bool unread = json_is_true(json_object_get(t, "unreadable"));
			json_t *pp;
			char *nic_open = set_text(json_object_get(t, "nic_open"));
			char *gpu_open = set_text(json_object_get(t, "gpu_open"));

			split_hca(hca, adapter, sizeof(adapter), &port);
			nic = np_devopen_judge(adapter, nic_open ? nic_open : "", unread);
			if (adapter[0] && !has_device_file(ports, adapter))
				nic = "no-device-file";
			gpu = np_devopen_judge(np_json_str(t, "gpus"), gpu_open ? gpu_open : "", unread);
			if (!strcmp(nic, "mismatch") || !strcmp(nic, "extra")) {
				char *e = np_strdup_printf("adapter %s", adapter), *f = np_strdup_printf("open %s", nic_open);
				deviation(devs, node, t, !strcmp(nic, "extra") ? "nic-extra" : "nic-mismatch", e ? e : "",
				          f ? f : "");
				free(e);
				free(f);
			}
			if (!strcmp(gpu, "mismatch") || !strcmp(gpu, "extra")) {
				char *e = np_strdup_printf("gpu %s", np_json_str(t, "gpus"));
				char *f = np_strdup_printf("open %s", gpu_open);
				deviation(devs, node, t, !strcmp(gpu, "extra") ? "gpu-extra" : "gpu-mismatch", e ? e : "",
				          f ? f : "");
				free(e);
				free(f);
			}
			/* the planned port went down (or never came up) */
			if (adapter[0] && (pp = port_of(ports, adapter, port ? port : 1)) &&
			    !np_json_streq(pp, "state", "ACTIVE")) {
				char *e = np_strdup_printf("%s:%u ACTIVE", adapter, port ? port : 1);
				char *f = np_strdup_printf("%s:%u %s", adapter, port ? port : 1, np_json_str(pp, "state"));
				deviation(devs, node, t, "port-down", e ? e : "", f ? f : "");
				free(e);
				free(f);
			}
			if (!strcmp(nic, "none-open") || !strcmp(nic, "unreadable") || !strcmp(gpu, "none-open") ||
			    !strcmp(gpu, "unreadable"))
				count(summary, "device_unverified");
			json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:O, s:s, s:s?, s:s, s:s, s:s?, s:s, s:b}",
			                      "node", node, "step", np_json_str(t, "step"), "rank", np_json_str(t, "rank"),
			                      "pid", json_object_get(t, "pid"), "nic_planned", hca, "nic_open", nic_open,
			                      "nic", nic, "gpu_planned", np_json_str(t, "gpus"), "gpu_open", gpu_open,
			                      "gpu", gpu, "kfd", json_is_true(json_object_get(t, "kfd"))));
			free(nic_open);
			free(gpu_open);
		}
		json_decref(tasks);
	}
	json_object_set_new(summary, "deviations", json_integer((json_int_t)json_array_size(devs)));
	return out;
}
