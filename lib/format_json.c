/*
 * format_json.c - the JSON forms of plans and topologies.  The plan's
 * fields are a contract: the launcher, the tests and external tools read
 * "policy", "ranks"[].{rank,host,cpus,mems,hca,env}.
 */
#include <stdlib.h>

#include <jansson.h>

#include <numaplan/format.h>

static json_t *cpulist(const np_cpuset_t *s)
{
	char *txt = np_cpuset_format(s);
	json_t *j = txt ? json_string(txt) : NULL;

	free(txt);
	return j;
}

static json_t *rank_json(const np_topo_t *t, const np_rank_t *r)
{
	json_t *o = json_object(), *env = json_object();

	json_object_set_new(o, "rank", json_integer(r->rank));
	json_object_set_new(o, "local_rank", json_integer(r->local_rank));
	json_object_set_new(o, "host", json_string(r->host));
	json_object_set_new(o, "bound", json_boolean(r->bound));
	json_object_set_new(o, "cpus", cpulist(r->cpus));
	json_object_set_new(o, "ncpus", json_integer(np_cpuset_count(r->cpus)));
	json_object_set_new(o, "mems", cpulist(r->mems));
	json_object_set_new(o, "mempolicy", json_string(r->mem == NP_MEM_NONE ? "none" :
	                    r->mem == NP_MEM_INTERLEAVE ? "interleave" : "bind"));
	json_object_set_new(o, "hca", r->hca ? json_string(r->hca) : json_null());
	if (r->hca) {
		json_object_set_new(o, "hca_port", r->port ? json_integer(r->port) : json_null());
		json_object_set_new(o, "hca_local", json_boolean(r->hca_local));
		if (r->device >= 0)
			json_object_set_new(o, "hca_kind", json_string(np_dev_kind_name(t->devices[r->device].kind)));
	}
	for (unsigned i = 0; i < r->nenv; i++)
		json_object_set_new(env, r->env[i].name, json_string(r->env[i].value));
	json_object_set_new(o, "env", env);
	return o;
}

static json_t *skipped_json(const np_plan_t *p)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < p->nskipped; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "name", p->skipped[i].name,
		                                   "reason", p->skipped[i].reason));
	return a;
}

char *np_plan_to_json(const np_topo_t *t, const np_plan_t *p)
{
	json_t *root = json_object(), *ranks = json_array(), *hosts = json_array();
	char *out;

	json_object_set_new(root, "policy", json_string(np_policy_name(p->policy)));
	json_object_set_new(root, "requested_policy", json_string(np_policy_name(p->requested)));
	json_object_set_new(root, "topology", json_string(t->source));
	json_object_set_new(root, "ntasks", json_integer(p->nranks));
	json_object_set_new(root, "cpus_per_task", json_integer(p->cpus_per_task));
	json_object_set_new(root, "threads", json_boolean(p->threads));
	json_object_set_new(root, "overcommitted", json_boolean(p->overcommitted));
	for (unsigned i = 0; i < p->nhosts; i++)
		json_array_append_new(hosts, json_string(p->hosts[i]));
	json_object_set_new(root, "hosts", hosts);
	json_object_set_new(root, "note", p->note ? json_string(p->note) : json_null());
	json_object_set_new(root, "port_states", json_string(t->ports_from ? t->ports_from : "topology"));
	json_object_set_new(root, "skipped_devices", skipped_json(p));
	for (unsigned i = 0; i < p->nranks; i++)
		json_array_append_new(ranks, rank_json(t, &p->ranks[i]));
	json_object_set_new(root, "ranks", ranks);
	out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return out;
}

static json_t *device_json(const np_device_t *d)
{
	json_t *o = json_object(), *ports = json_array();
	unsigned port;
	char why[256], b[32];

	json_object_set_new(o, "name", json_string(d->name));
	json_object_set_new(o, "kind", json_string(np_dev_kind_name(d->kind)));
	json_object_set_new(o, "pci", d->pci_busid ? json_string(d->pci_busid) : json_null());
	json_object_set_new(o, "cpus", cpulist(d->cpus));
	json_object_set_new(o, "numa", cpulist(d->numas));
	json_object_set_new(o, "machine_root", json_boolean(d->at_root));
	for (unsigned i = 0; i < d->nports; i++) {
		json_t *p = json_object();

		json_object_set_new(p, "port", json_integer(d->ports[i].num));
		json_object_set_new(p, "state", d->ports[i].state >= 0 ? json_integer(d->ports[i].state) : json_null());
		json_object_set_new(p, "state_name", d->ports[i].state >= 0 ?
		                    json_string(np_port_state_name(d->ports[i].state, b, sizeof(b))) : json_null());
		json_object_set_new(p, "link_layer", d->ports[i].link != NP_LINK_UNKNOWN ?
		                    json_string(np_link_name(d->ports[i].link)) : json_null());
		json_object_set_new(p, "lid", d->ports[i].lid >= 0 ? json_integer(d->ports[i].lid) : json_null());
		json_array_append_new(ports, p);
	}
	json_object_set_new(o, "ports", ports);
	if (d->kind == NP_DEV_GPU)
		return o;
	json_object_set_new(o, "operstate", d->operstate ? json_string(d->operstate) : json_null());
	if (np_device_usable(d, 0, &port, why, sizeof(why))) {
		json_object_set_new(o, "usable", json_true());
		json_object_set_new(o, "unusable_reason", json_null());
	} else {
		json_object_set_new(o, "usable", json_false());
		json_object_set_new(o, "unusable_reason", json_string(why));
	}
	return o;
}

char *np_topo_to_json(const np_topo_t *t)
{
	json_t *root = json_object(), *a;
	char *out;

	json_object_set_new(root, "source", json_string(t->source));
	json_object_set_new(root, "hostname", json_string(t->hostname));
	json_object_set_new(root, "cpu_model", t->cpu_model ? json_string(t->cpu_model) : json_null());
	json_object_set_new(root, "allowed_cpus", cpulist(t->allowed));
	json_object_set_new(root, "port_states", json_string(t->ports_from ? t->ports_from : "topology"));
	json_object_set_new(root, "npus", json_integer(t->npus));
	json_object_set_new(root, "ncores", json_integer(t->ncores));
	a = json_array();
	for (unsigned i = 0; i < t->npackages; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "os_index", json_integer(t->packages[i].os_index));
		json_object_set_new(o, "cpus", cpulist(t->packages[i].cpus));
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "packages", a);
	a = json_array();
	for (unsigned i = 0; i < t->nnuma; i++) {
		json_t *o = json_object();
		const np_numa_t *n = &t->numa[i];

		json_object_set_new(o, "os_index", json_integer(n->os_index));
		json_object_set_new(o, "package", n->package >= 0 ?
		                    json_integer(t->packages[n->package].os_index) : json_null());
		json_object_set_new(o, "cpus", cpulist(n->cpus));
		json_object_set_new(o, "ncores", json_integer(n->ncores));
		json_object_set_new(o, "memory", json_integer((json_int_t)n->memory));
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "numa", a);
	a = json_array();
	for (unsigned i = 0; i < t->nl3; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "cpus", cpulist(t->l3[i].cpus));
		json_object_set_new(o, "size", json_integer((json_int_t)t->l3[i].size));
		json_object_set_new(o, "numa", t->l3[i].numa >= 0 ?
		                    json_integer(t->numa[t->l3[i].numa].os_index) : json_null());
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "l3", a);
	a = json_array();
	for (unsigned i = 0; i < t->ndevices; i++)
		if (t->devices[i].kind != NP_DEV_GPU)
			json_array_append_new(a, device_json(&t->devices[i]));
	json_object_set_new(root, "devices", a);
	a = json_array();
	for (unsigned i = 0; i < t->ndevices; i++)
		if (t->devices[i].kind == NP_DEV_GPU)
			json_array_append_new(a, device_json(&t->devices[i]));
	json_object_set_new(root, "gpus", a);
	if (t->distances) {
		json_t *m = json_array();

		for (unsigned i = 0; i < t->nnuma; i++) {
			json_t *row = json_array();

			for (unsigned j = 0; j < t->nnuma; j++)
				json_array_append_new(row, json_integer((json_int_t)t->distances[i * t->nnuma + j]));
			json_array_append_new(m, row);
		}
		json_object_set_new(root, "distances", m);
		json_object_set_new(root, "distances_name", json_string(t->distances_name));
	} else {
		json_object_set_new(root, "distances", json_null());
	}
	out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return out;
}
