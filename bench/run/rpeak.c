/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpeak.c - Rpeak = cores x clock x FLOP/cycle (double precision).
 *
 * FLOP/cycle per core (documented in numaplan-run(1)):
 *   x86 avx512f          32  two 512-bit FMA units (8 lanes x 2 x 2)
 *       except AMD family 0x19 (Zen 4, 512-bit ops on 256-bit units) 16
 *   x86 avx2 + fma       16  two 256-bit FMA units
 *       except AMD family 0x17 models < 0x30 (Zen, Zen+: 128-bit units) 8
 *   x86 avx              8   one 256-bit add + one 256-bit multiply
 *   x86 sse2             4   one 128-bit add + one 128-bit multiply
 *   aarch64 sve          16  assumed 4 x 128-bit FMA pipes (Neoverse V2)
 *   aarch64 asimd        8   two 128-bit FMA pipes
 * Xeons with a single 512-bit FMA unit (Bronze, Silver, some Gold 5xxx)
 * reach only half the avx512f figure: override with --flops-per-cycle.
 *
 * Clock: --clock, else cpufreq base_frequency, else the "@ 2.20GHz" of the
 * model name, else cpufreq cpuinfo_max_freq, else /proc/cpuinfo "cpu MHz"
 * (the current clock, the least reliable).  Turbo is not peak here, which
 * is why measured HPL can exceed 100% (the seed study's 100.6%).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/rpeak.h"
#include "bench_util.h"
#include "sysread/kfile.h"

static bool has_flag(const char *flags, const char *f)
{
	size_t n = strlen(f);
	const char *p = flags;

	if (!flags)
		return false;
	while ((p = strstr(p, f)) != NULL) {
		if ((p == flags || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == '\t'))
			return true;
		p += n;
	}
	return false;
}

double np_rpeak_fpc_from_cpu(const char *vendor, int family, int model,
                             const char *flags, const char *model_name,
                             char *src, size_t srclen)
{
	bool amd = vendor && strcmp(vendor, "AuthenticAMD") == 0;

	if (has_flag(flags, "avx512f")) {
		if (amd && family == 0x19) {
			snprintf(src, srclen, "avx512f on AMD family 0x19 (Zen 4: 256-bit FMA units): 16");
			return 16;
		}
		snprintf(src, srclen, "avx512f: 2 x 512-bit FMA units: 32");
		return 32;
	}
	if (has_flag(flags, "avx2") && has_flag(flags, "fma")) {
		if (amd && family == 0x17 && model < 0x30) {
			snprintf(src, srclen, "avx2+fma on AMD family 0x17 model 0x%x (Zen/Zen+: 128-bit FMA units): 8", model);
			return 8;
		}
		snprintf(src, srclen, "avx2+fma: 2 x 256-bit FMA units: 16");
		return 16;
	}
	if (has_flag(flags, "avx")) {
		snprintf(src, srclen, "avx: 256-bit add + multiply: 8");
		return 8;
	}
	if (has_flag(flags, "sve")) {
		snprintf(src, srclen, "sve: assumed 4 x 128-bit FMA pipes: 16");
		return 16;
	}
	if (has_flag(flags, "asimd")) {
		snprintf(src, srclen, "asimd: 2 x 128-bit FMA pipes: 8");
		return 8;
	}
	if (has_flag(flags, "sse2")) {
		snprintf(src, srclen, "sse2: 128-bit add + multiply: 4");
		return 4;
	}
	if (model_name) {
		/* An XML topology has no flags: recognise common server parts. */
		const char *p = strstr(model_name, "EPYC ");
		if (p && strlen(p) >= 9 && p[5] >= '7' && p[5] <= '9') {
			char gen = p[8];
			double f = gen == '1' ? 8 : (p[5] == '9' && gen >= '5') ? 32 : 16;
			snprintf(src, srclen, "model name '%s' (EPYC generation %c): %.0f", model_name, gen, f);
			return f;
		}
		if (strstr(model_name, "Platinum") || strstr(model_name, "Gold") || strstr(model_name, "Phi")) {
			snprintf(src, srclen, "model name '%s' (AVX-512, 2 FMA units): 32", model_name);
			return 32;
		}
		if (strstr(model_name, " v3") || strstr(model_name, " v4")) {
			snprintf(src, srclen, "model name '%s' (Haswell/Broadwell AVX2+FMA): 16", model_name);
			return 16;
		}
		if (strstr(model_name, "E5-")) {
			snprintf(src, srclen, "model name '%s' (Sandy/Ivy Bridge AVX): 8", model_name);
			return 8;
		}
	}
	snprintf(src, srclen, "unknown CPU: give --flops-per-cycle");
	return 0;
}

static char *cpuinfo_field(const char *text, const char *key)
{
	const char *p = text;
	size_t n = strlen(key);

	while (p && *p) {
		if (strncmp(p, key, n) == 0 && (p[n] == ' ' || p[n] == '\t' || p[n] == ':')) {
			const char *c = strchr(p, ':');
			const char *e = strchr(p, '\n');
			if (c && (!e || c < e)) {
				c++;
				while (*c == ' ' || *c == '\t')
					c++;
				return strndup(c, e ? (size_t)(e - c) : strlen(c));
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static double sysfs_khz(const char *file)
{
	char *path = np_strdup_printf("/sys/devices/system/cpu/cpu0/cpufreq/%s", file), txt[64];
	double v = 0;

	if (path && np_kfile_line(path, txt, sizeof(txt)) == 0)
		v = atof(txt);
	free(path);
	return v;
}

static double ghz_from_name(const char *name)
{
	const char *at = name ? strchr(name, '@') : NULL;
	double v;

	if (!at)
		return 0;
	v = atof(at + 1);
	if (strstr(at, "MHz"))
		v /= 1000;
	return v > 0.1 && v < 10 ? v : 0;
}

void np_rpeak_compute(const np_topo_t *t, bool live, const char *cpuinfo,
                      const np_rpeak_opts_t *o, np_rpeak_t *r)
{
	char *own = NULL, *vendor = NULL, *flags = NULL, *fam = NULL, *mod = NULL, *name = NULL, *mhz = NULL;
	double v;

	memset(r, 0, sizeof(*r));
	if (live && !cpuinfo)
		/* some 1.5 KB a CPU */
		cpuinfo = np_kfile_slurp("/proc/cpuinfo", 64u << 20, &own, NULL) == 0 ? own : NULL;
	if (cpuinfo) {
		vendor = cpuinfo_field(cpuinfo, "vendor_id");
		flags = cpuinfo_field(cpuinfo, "flags");
		if (!flags)
			flags = cpuinfo_field(cpuinfo, "Features");
		fam = cpuinfo_field(cpuinfo, "cpu family");
		mod = cpuinfo_field(cpuinfo, "model");
		name = cpuinfo_field(cpuinfo, "model name");
		mhz = cpuinfo_field(cpuinfo, "cpu MHz");
	}
	if (!name && t && t->cpu_model)
		name = strdup(t->cpu_model);

	if (o && o->cores) {
		r->cores = o->cores;
		snprintf(r->cores_src, sizeof(r->cores_src), "--cores");
	} else {
		r->cores = t ? t->ncores : 0;
		snprintf(r->cores_src, sizeof(r->cores_src), "allowed cores of the topology (%s)",
		         t && t->source ? t->source : "?");
	}

	if (o && o->ghz > 0) {
		r->ghz = o->ghz;
		snprintf(r->ghz_src, sizeof(r->ghz_src), "--clock");
	} else if (own && (v = sysfs_khz("base_frequency")) > 0) {
		r->ghz = v / 1e6;
		snprintf(r->ghz_src, sizeof(r->ghz_src), "cpufreq base_frequency");
	} else if ((v = ghz_from_name(name)) > 0) {
		r->ghz = v;
		snprintf(r->ghz_src, sizeof(r->ghz_src), "model name '%s'", name);
	} else if (own && (v = sysfs_khz("cpuinfo_max_freq")) > 0) {
		r->ghz = v / 1e6;
		snprintf(r->ghz_src, sizeof(r->ghz_src), "cpufreq cpuinfo_max_freq");
	} else if (mhz && (v = atof(mhz)) > 0) {
		r->ghz = v / 1000;
		snprintf(r->ghz_src, sizeof(r->ghz_src), "/proc/cpuinfo cpu MHz (current clock)");
	} else {
		snprintf(r->ghz_src, sizeof(r->ghz_src), "unknown: give --clock GHZ");
	}

	if (o && o->flops_per_cycle > 0) {
		r->flops_per_cycle = o->flops_per_cycle;
		snprintf(r->fpc_src, sizeof(r->fpc_src), "--flops-per-cycle");
	} else {
		r->flops_per_cycle = np_rpeak_fpc_from_cpu(vendor, fam ? (int)strtol(fam, NULL, 0) : -1,
		                                           mod ? (int)strtol(mod, NULL, 0) : -1,
		                                           flags, name, r->fpc_src, sizeof(r->fpc_src));
	}
	r->gflops = r->cores * r->ghz * r->flops_per_cycle;
	free(own);
	free(vendor);
	free(flags);
	free(fam);
	free(mod);
	free(name);
	free(mhz);
}

json_t *np_rpeak_to_json(const np_rpeak_t *r, unsigned nodes)
{
	return json_pack("{s:i, s:f, s:f, s:f, s:i, s:f, s:{s:s, s:s, s:s}}",
	                 "cores", (int)r->cores, "ghz", r->ghz, "flops_per_cycle", r->flops_per_cycle,
	                 "gflops_per_node", r->gflops, "nodes", (int)nodes,
	                 "gflops", r->gflops * nodes,
	                 "source", "cores", r->cores_src, "ghz", r->ghz_src,
	                 "flops_per_cycle", r->fpc_src);
}
