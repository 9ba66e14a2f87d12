/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * device_health.c - whether a network device can take ranks, and through
 * which port.
 *
 * Only a known state excludes: a port whose state nobody recorded (an XML
 * without port states, an interface not read live) might well be up, and
 * refusing it would turn every such node into a fallback.
 */
#include <stdio.h>
#include <string.h>

#include <numaplan/topo.h>

const char *np_port_state_name(int state, char *buf, unsigned len)
{
	switch (state) {
	case NP_PORT_DOWN: return "DOWN";
	case NP_PORT_INIT: return "INIT";
	case NP_PORT_ARMED: return "ARMED";
	case NP_PORT_ACTIVE: return "ACTIVE";
	case 5: return "ACTIVE_DEFER";
	}
	if (state < 0)
		return "unknown";
	snprintf(buf, len, "state %d", state);
	return buf;
}

const char *np_link_name(np_link_t l)
{
	switch (l) {
	case NP_LINK_INFINIBAND: return "InfiniBand";
	case NP_LINK_ETHERNET: return "Ethernet";
	case NP_LINK_OTHER: return "other";
	case NP_LINK_UNKNOWN: break;
	}
	return "unknown";
}

/* RFC 2863 states: only "up" carries traffic; "unknown" is what drivers
 * that do not track the link report, so it does not exclude. */
static int interface_usable(const np_device_t *d, char *why, unsigned len)
{
	if (!d->operstate || !strcmp(d->operstate, "up") || !strcmp(d->operstate, "unknown"))
		return 1;
	snprintf(why, len, "link %s", d->operstate);
	return 0;
}

static const np_port_t *find_port(const np_device_t *d, unsigned num)
{
	for (unsigned i = 0; i < d->nports; i++)
		if (d->ports[i].num == num)
			return &d->ports[i];
	return NULL;
}

/* "port 1 DOWN" or "no ACTIVE port (1 DOWN, 2 INIT)" */
static void ports_why(const np_device_t *d, char *why, unsigned len)
{
	size_t n = 0;
	char b[32];

	if (d->nports == 1) {
		snprintf(why, len, "port %u %s", d->ports[0].num,
		         np_port_state_name(d->ports[0].state, b, sizeof(b)));
		return;
	}
	n = (size_t)snprintf(why, len, "no ACTIVE port (");
	for (unsigned i = 0; i < d->nports && n < len; i++)
		n += (size_t)snprintf(why + n, len - n, "%s%u %s", i ? ", " : "", d->ports[i].num,
		                      np_port_state_name(d->ports[i].state, b, sizeof(b)));
	if (n < len)
		snprintf(why + n, len - n, ")");
}

int np_device_usable(const np_device_t *d, unsigned want_port, unsigned *port, char *why,
                     unsigned len)
{
	const np_port_t *p;
	char b[32];

	*port = 0;
	if (d->problem) {
		snprintf(why, len, "%s", d->problem);
		return 0;
	}
	if (d->kind == NP_DEV_NETDEV || d->kind == NP_DEV_SLINGSHOT)
		return interface_usable(d, why, len);
	if (want_port) {
		p = find_port(d, want_port);
		if (p && p->state >= 0 && p->state != NP_PORT_ACTIVE) {
			snprintf(why, len, "port %u %s", want_port, np_port_state_name(p->state, b, sizeof(b)));
			return 0;
		}
		*port = want_port;
		return 1;
	}
	if (d->nports == 0) {
		/* nothing recorded: OpenFabrics devices number ports from 1 */
		*port = 1;
		return 1;
	}
	for (unsigned i = 0; i < d->nports; i++)
		if (d->ports[i].state == NP_PORT_ACTIVE) {
			*port = d->ports[i].num;
			return 1;
		}
	for (unsigned i = 0; i < d->nports; i++)
		if (d->ports[i].state < 0) {
			*port = d->ports[i].num;
			return 1;
		}
	ports_why(d, why, len);
	return 0;
}
