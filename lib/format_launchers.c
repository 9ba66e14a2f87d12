/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * format_launchers.c - a plan as the launchers take it: Open MPI 5 and 4
 * rankfiles, srun masks (+ SLURM_HOSTFILE), hydra user binding lists and
 * numactl lines, each with the ranks' environment (format_env.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numaplan/format.h>

#include "common/escape.h"
#include "common/text.h"
#include "format_internal.h"



static const char *cmd_or_default(const char *cmd)
{
	return cmd && *cmd ? cmd : "./a.out";
}

/* Both Open MPI readers copy "HOST slot=LIST" into a 64-byte buffer with
 * sprintf (ORTE in 4.x, PRRTE 3.0 in 5.0): a longer line crashes mpirun
 * ("buffer overflow detected") rather than being refused. */
#define OMPI_RANKFILE_ENTRY_MAX 63

/* Does every rank hold whole cores, as a launcher binding cores would
 * bind them (every PU hwloc shows in the core)? */
static int whole_cores(const np_topo_t *t, const np_plan_t *p, const int *pu_core, unsigned npu)
{
	for (unsigned i = 0; i < p->nranks; i++) {
		const np_cpuset_t *s = p->ranks[i].cpus;

		for (int c = np_cpuset_first(s); c >= 0; c = np_cpuset_next(s, c)) {
			const np_core_t *core;

			if ((unsigned)c >= npu || pu_core[c] < 0)
				return 0;
			core = &t->cores[pu_core[c]];
			if (core->npus != core->npus_all)
				return 0;
			for (unsigned k = 0; k < core->npus; k++)
				if (!np_cpuset_isset(s, core->pus[k]))
					return 0;
		}
	}
	return 1;
}

/* The logical index (core, or PU with threads) of each allowed PU. */
static int *logical_table(const np_topo_t *t, int threads, unsigned *npu, int *pu_core)
{
	int last = np_cpuset_last(t->allowed);
	int *tab;

	*npu = last < 0 ? 0 : (unsigned)last + 1;
	tab = malloc((*npu ? *npu : 1) * sizeof(int));
	if (!tab)
		return NULL;
	for (unsigned i = 0; i < *npu; i++)
		tab[i] = pu_core[i] = -1;
	for (unsigned c = 0; c < t->ncores; c++)
		for (unsigned k = 0; k < t->cores[c].npus; k++) {
			unsigned pu = t->cores[c].pus[k];

			if (pu < *npu) {
				tab[pu] = (int)(threads ? t->cores[c].pus_logical[k] : t->cores[c].logical_index);
				pu_core[pu] = (int)c;
			}
		}
	return tab;
}

/* Do the ranks' variables differ, so that the line needs one app per
 * rank (and no global -n)? */
static bool env_mpmd(const np_plan_t *p)
{
	return np_env_any(p, NULL) && !np_env_uniform(p, NULL);
}

/*
 * The programs of a launcher line: the variables in their global form
 * then " CMD" when every rank has the same (one app), else one app per
 * rank - " -n 1", the rank's variables, CMD - joined by " :" (the MPMD
 * form Open MPI and hydra share).
 */
static int write_apps(FILE *f, const np_plan_t *p, np_env_style_t local, np_env_style_t global,
                      const char *cmd)
{
	int rc = 0;

	if (!env_mpmd(p)) {
		if (np_env_any(p, NULL) && (rc = np_env_write(f, &p->ranks[0], global, NULL)) < 0)
			return rc;
		fprintf(f, " %s", cmd_or_default(cmd));
		return 0;
	}
	for (unsigned i = 0; i < p->nranks && rc == 0; i++) {
		fprintf(f, "%s -n 1", i ? " :" : "");
		if ((rc = np_env_write(f, &p->ranks[i], local, NULL)) == 0)
			fprintf(f, " %s", cmd_or_default(cmd));
	}
	return rc;
}

static int put_rankfile_line(FILE *f, const np_rank_t *r, const char *slots, np_error_t *err)
{
	size_t len = strlen(r->host) + strlen(" slot=") + strlen(slots);

	if (len > OMPI_RANKFILE_ENTRY_MAX)
		return np_error_set(err, -E2BIG,
		                    "rank %u: \"%s slot=%s\" is %zu characters, but Open MPI's rankfile "
		                    "reader overflows beyond %d (use --format slurm, mpich or numactl)",
		                    r->rank, r->host, slots, len, OMPI_RANKFILE_ENTRY_MAX);
	fprintf(f, "rank %u=%s slot=%s\n", r->rank, r->host, slots);
	return 0;
}

/*
 * Open MPI 5: PRRTE reads slot lists as logical indexes - of cores by
 * default, of hardware threads under --map-by ...:hwtcpus.  Ranks of whole
 * cores get core indexes (the plain mpirun line); otherwise PU indexes
 * and the qualifier, with --use-hwthread-cpus: without a resource
 * manager PRRTE counts a node's slots in cores, and the qualifier alone
 * leaves it so (Open MPI 5.0.7 refuses 8 ranks on 4 cores of 2 threads as
 * "oversubscribed"; tests/numavm/60-ompi5.t).  Open MPI 4 (ompi4) reads physical PU numbers with
 * rmaps_rank_file_physical, each widened to its core unless
 * --use-hwthread-cpus.  Ranks sharing CPUs (overcommitted) need
 * overload-allowed in Open MPI 5; Open MPI 4 accepts them as they are.
 */
static int write_ompi(FILE *f, const np_topo_t *t, const np_plan_t *p, const char *cmd, int v5,
                      np_error_t *err)
{
	unsigned npu;
	int *pu_core = malloc((np_cpuset_last(t->allowed) + 2) * sizeof(int)), *logical, cores;
	np_cpuset_t *s = np_cpuset_new();
	int rc = 0;

	logical = pu_core ? logical_table(t, 0, &npu, pu_core) : NULL;
	if (!logical || !s) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	cores = whole_cores(t, p, pu_core, npu);
	if (v5 && !cores) {
		free(logical);
		logical = logical_table(t, 1, &npu, pu_core);
		if (!logical) {
			rc = np_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
	}
	/* the ranks' variables go with -x, per app context when they differ
	 * (one app per rank, which the rankfile places as it places ranks) */
	if (v5)
		fprintf(f, "# Open MPI 5 rankfile (policy %s): slots are LOGICAL %s indexes (hwloc's, as\n"
		        "# lstopo -l shows them). Save it as FILE and run:\n#   mpirun",
		        np_policy_name(p->policy), cores ? "core" : "hardware-thread");
	else
		fprintf(f, "# Open MPI 4 rankfile (policy %s): slots are PHYSICAL PU numbers (OS indexes).\n"
		        "# Save it as FILE and run:\n#   mpirun", np_policy_name(p->policy));
	if (!env_mpmd(p))
		fprintf(f, " -n %u", p->nranks);
	if (v5)
		fprintf(f, " --map-by rankfile:file=FILE%s%s", cores ? "" : ":hwtcpus --use-hwthread-cpus",
		        !p->overcommitted ? "" : cores ? " --bind-to core:overload-allowed" :
		        " --bind-to hwthread:overload-allowed");
	else
		fprintf(f, " --rankfile FILE --mca rmaps_rank_file_physical 1%s",
		        cores ? "" : " --use-hwthread-cpus");
	if ((rc = write_apps(f, p, NP_ENV_OMPI, NP_ENV_OMPI, cmd)) < 0) {
		np_error_set(err, rc, "out of memory");
		goto out;
	}
	fputc('\n', f);
	for (unsigned i = 0; i < p->nranks && rc == 0; i++) {
		const np_rank_t *r = &p->ranks[i];
		char *list;

		if (v5) {
			np_cpuset_zero(s);
			for (int c = np_cpuset_first(r->cpus); c >= 0; c = np_cpuset_next(r->cpus, c))
				if ((unsigned)c < npu && logical[c] >= 0 &&
				    (rc = np_cpuset_set(s, (unsigned)logical[c])) < 0)
					break;
		}
		list = rc < 0 ? NULL : np_cpuset_format(v5 ? s : r->cpus);
		rc = list ? put_rankfile_line(f, r, list, err) : np_error_set(err, -ENOMEM, "out of memory");
		free(list);
	}
out:
	free(pu_core);
	free(logical);
	np_cpuset_free(s);
	return rc;
}

/* Launchers' per-node bind lists are indexed by local rank; every host
 * runs the same local plan (same topology), so host 0's ranks give them. */
static unsigned first_host_ranks(const np_plan_t *p)
{
	unsigned n = 0;

	while (n < p->nranks && p->ranks[n].host == p->ranks[0].host)
		n++;
	return n;
}

/*
 * srun's --gpu-bind takes the GPUs of each local task as gres/gpu indexes
 * (np_rank_t.gpu_gres): map_gpu when every task has one, mask_gpu (hex)
 * when some have several.  Slurm numbers the node's GPUs in PCI bus id
 * order (AutoDetect's order, and the order gres.conf is asked to list
 * them in), a partitioned GPU once per partition as AutoDetect=rsmi
 * lists them, which is also how the runtime numbers them.  Nothing when a
 * task has no GPU or one past 63 (a mask srun would not take).
 */
static bool gpu_bind_fits(const np_plan_t *p, unsigned nlocal)
{
	/* --gpu-bind would hide the other GPUs: every GPU visible is for
	 * the variables alone */
	if (p->policy != NP_POLICY_GPU_NEAR || p->gpus_visible_all)
		return false;
	for (unsigned i = 0; i < nlocal; i++) {
		if (p->ranks[i].ngpus == 0 || !p->ranks[i].gpu_gres)
			return false;
		for (unsigned k = 0; k < p->ranks[i].ngpus; k++)
			if (p->ranks[i].gpu_gres[k] > 63)
				return false;
	}
	return true;
}

static void write_gpu_bind(FILE *f, const np_plan_t *p, unsigned nlocal)
{
	int single = 1;

	for (unsigned i = 0; i < nlocal; i++)
		single &= p->ranks[i].ngpus == 1;
	fprintf(f, " --gpu-bind=%s:", single ? "map_gpu" : "mask_gpu");
	for (unsigned i = 0; i < nlocal; i++) {
		unsigned long long mask = 0;

		for (unsigned k = 0; k < p->ranks[i].ngpus; k++)
			mask |= 1ULL << p->ranks[i].gpu_gres[k];
		if (single)
			fprintf(f, "%s%u", i ? "," : "", p->ranks[i].gpu_gres[0]);
		else
			fprintf(f, "%s0x%llx", i ? "," : "", mask);
	}
}

/* The first nlocal ranks' CPU (or, mems, memory node) sets as srun's
 * comma-separated hex masks. */
static int write_masks(FILE *f, const np_plan_t *p, unsigned nlocal, bool mems)
{
	for (unsigned i = 0; i < nlocal; i++) {
		char *hex = np_cpuset_format_hex(mems ? p->ranks[i].mems : p->ranks[i].cpus);

		if (!hex)
			return -ENOMEM;
		fprintf(f, "%s%s", i ? "," : "", hex);
		free(hex);
	}
	return 0;
}

/* The GPU variables, which srun's --gpu-bind sets itself, per task, in
 * the numbering of the step's own devices. */
static const char *const gpu_vars[] = {
	"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
	"GPU_DEVICE_ORDINAL",
};

/* srun has no per-task environment: the ranks' variables are env(1)
 * words before the command when they are the same for all, else a
 * --multi-prog file runs each task's own env line (task ids are global
 * ranks, as the hostfile orders them). */
static int write_slurm_multi(FILE *f, const np_plan_t *p, const np_env_skip_t *skip, const char *cmd)
{
	int rc = 0;

	fprintf(f, "# srun --multi-prog: each task's variables (%%t and %%o are srun's)\n");
	fprintf(f, "cat > numaplan.multi <<'EOF'\n");
	for (unsigned i = 0; i < p->nranks && rc == 0; i++) {
		fprintf(f, "%u env", p->ranks[i].rank);
		if ((rc = np_env_write(f, &p->ranks[i], NP_ENV_MULTI_PROG, skip)) == 0)
			fprintf(f, " %s\n", cmd_or_default(cmd));
	}
	fprintf(f, "EOF\n");
	return rc;
}

/* srun masks are per local task; every host runs the same local plan
 * only when the ranks per host are equal, so masks follow host 0's ranks
 * and the hostfile pins each rank to its host. */
static int write_slurm(FILE *f, const np_plan_t *p, const char *cmd)
{
	unsigned nlocal = first_host_ranks(p);
	bool gpu_bind = gpu_bind_fits(p, nlocal);
	np_env_skip_t skip = { gpu_vars, gpu_bind ? sizeof(gpu_vars) / sizeof(gpu_vars[0]) : 0 };
	bool any = np_env_any(p, &skip), multi = any && !np_env_uniform(p, &skip);
	int mem = 0, rc;

	for (unsigned i = 0; i < nlocal; i++)
		if (!np_cpuset_iszero(p->ranks[i].mems))
			mem = 1;
	if (p->nhosts > 1) {
		fprintf(f, "# SLURM_HOSTFILE for --distribution=arbitrary (one line per rank):\n");
		fprintf(f, "cat > numaplan.hosts <<'EOF'\n");
		for (unsigned i = 0; i < p->nranks; i++)
			fprintf(f, "%s\n", p->ranks[i].host);
		fprintf(f, "EOF\nexport SLURM_HOSTFILE=$PWD/numaplan.hosts\n");
	}
	if (multi && (rc = write_slurm_multi(f, p, &skip, cmd)) < 0)
		return rc;
	fprintf(f, "srun --ntasks=%u", p->nranks);
	if (p->nhosts > 1)
		fprintf(f, " --nodes=%u --distribution=arbitrary", p->nhosts);
	if (p->policy == NP_POLICY_NONE) {
		fprintf(f, " --cpu-bind=none %s\n", cmd_or_default(cmd));
		return 0;
	}
	fprintf(f, " --cpu-bind=mask_cpu:");
	if (write_masks(f, p, nlocal, false) < 0)
		return -ENOMEM;
	if (mem) {
		/* srun has no per-task interleave mask: the nodes are given, the
		 * interleave mode is only in the json and numactl forms */
		fprintf(f, " --mem-bind=mask_mem:");
		if (write_masks(f, p, nlocal, true) < 0)
			return -ENOMEM;
	}
	if (gpu_bind)
		write_gpu_bind(f, p, nlocal);
	if (multi) {
		fprintf(f, " --multi-prog numaplan.multi\n");
		return 0;
	}
	if (any) {
		fprintf(f, " env");
		if ((rc = np_env_write(f, &p->ranks[0], NP_ENV_WORDS, &skip)) < 0)
			return rc;
	}
	fprintf(f, " %s\n", cmd_or_default(cmd));
	return 0;
}

/* hydra: -bind-to user:A+B,C+D (ranks by comma, PUs joined by '+'),
 * applied to the local ranks of each host.  -hosts H:N,... has no quoting
 * (hydra splits at ',' and ':'), and takes fewer than 1000 hosts
 * (HYD_NUM_TMP_STRINGS in hydra's ui/mpich/utils.c). */
static int write_mpich(FILE *f, const np_plan_t *p, const char *cmd, np_error_t *err)
{
	unsigned nlocal = first_host_ranks(p);

	if (p->nhosts > 999)
		return np_error_set(err, -E2BIG, "--format mpich: hydra's -hosts takes at most 999 "
		                    "hosts, not %u", p->nhosts);
	fprintf(f, "mpiexec.mpich");
	/* one app per rank when their variables differ: -n 1 each */
	if (!env_mpmd(p))
		fprintf(f, " -n %u", p->nranks);
	if (p->nhosts > 1) {
		fprintf(f, " -hosts ");
		for (unsigned h = 0, i = 0; h < p->nhosts; h++) {
			unsigned c = 0;

			while (i < p->nranks && p->ranks[i].host == p->hosts[h]) {
				c++;
				i++;
			}
			fprintf(f, "%s%s:%u", h ? "," : "", p->hosts[h], c);
		}
	}
	if (p->policy == NP_POLICY_NONE) {
		fprintf(f, " -bind-to none %s\n", cmd_or_default(cmd));
		return 0;
	}
	fprintf(f, " -bind-to user:");
	for (unsigned i = 0; i < nlocal; i++) {
		int first = 1;

		fputs(i ? "," : "", f);
		for (int c = np_cpuset_first(p->ranks[i].cpus); c >= 0; c = np_cpuset_next(p->ranks[i].cpus, c)) {
			fprintf(f, "%s%d", first ? "" : "+", c);
			first = 0;
		}
	}
	if (write_apps(f, p, NP_ENV_HYDRA, NP_ENV_HYDRA_GLOBAL, cmd) < 0)
		return np_error_set(err, -ENOMEM, "out of memory");
	fputc('\n', f);
	return 0;
}

static int write_numactl(FILE *f, const np_plan_t *p, const char *cmd)
{
	for (unsigned i = 0; i < p->nranks; i++) {
		const np_rank_t *r = &p->ranks[i];
		char *cpus = np_cpuset_format(r->cpus), *mems = np_cpuset_format(r->mems);

		if (!cpus || !mems) {
			free(cpus);
			free(mems);
			return -ENOMEM;
		}
		fprintf(f, "# rank %u on %s\n", r->rank, r->host);
		/* numactl passes its environment on: env(1) in front gives the
		 * rank its own */
		if (r->bound && r->nenv) {
			fputs("env", f);
			if (np_env_write(f, r, NP_ENV_WORDS, NULL) < 0) {
				free(cpus);
				free(mems);
				return -ENOMEM;
			}
			fputc(' ', f);
		}
		if (!r->bound)
			fprintf(f, "%s\n", cmd_or_default(cmd));
		else if (mems[0])
			fprintf(f, "numactl --physcpubind=%s --%s=%s -- %s\n", cpus,
			        r->mem == NP_MEM_INTERLEAVE ? "interleave" : "membind", mems,
			        cmd_or_default(cmd));
		else
			fprintf(f, "numactl --physcpubind=%s -- %s\n", cpus, cmd_or_default(cmd));
		free(cpus);
		free(mems);
	}
	return 0;
}

int np_plan_write(FILE *f, const np_topo_t *t, const np_plan_t *p, np_format_t fmt,
                  const char *cmd, np_error_t *err)
{
	int rc = 0;

	/* Launcher lines and files are read by shells and launchers: a host
	 * name from --hosts or from an XML's HostName must be a plain one. */
	for (unsigned h = 0; fmt != NP_FMT_JSON && h < p->nhosts; h++)
		if (!np_host_name_ok(p->hosts[h]))
			return np_error_set(err, -EINVAL, "host name '%.300s' cannot be written: a host "
			                    "name is 1-255 letters, digits, '.', '-' and '_', starting "
			                    "with a letter or digit", p->hosts[h] ? p->hosts[h] : "");
	/* The command is written into a comment line (the rankfiles) or a
	 * command line: a newline would end it and start a line of the
	 * command's making, an escape would reach the terminal. */
	if (fmt != NP_FMT_JSON && fmt != NP_FMT_TABLE && cmd && np_has_control(cmd, "\t"))
		return np_error_set(err, -EINVAL, "the command holds a control character (a newline, an escape, ...): "
		                    "written into the %s lines it would end them or reach the terminal; give the "
		                    "command without it", fmt == NP_FMT_SLURM ? "srun" : fmt == NP_FMT_MPICH ? "mpiexec" :
		                    fmt == NP_FMT_NUMACTL ? "numactl" : "rankfile header");
	switch (fmt) {
	case NP_FMT_TABLE: rc = np_plan_write_table(f, t, p); break;
	case NP_FMT_JSON:
		if ((rc = np_plan_write_json(f, t, p, err)) < 0)
			return rc;
		break;
	case NP_FMT_OMPI: rc = write_ompi(f, t, p, cmd, 1, err); break;
	case NP_FMT_OMPI4: rc = write_ompi(f, t, p, cmd, 0, err); break;
	case NP_FMT_SLURM: rc = write_slurm(f, p, cmd); break;
	case NP_FMT_MPICH:
		if ((rc = write_mpich(f, p, cmd, err)) < 0)
			return rc;
		break;
	case NP_FMT_NUMACTL: rc = write_numactl(f, p, cmd); break;
	default:
		return np_error_set(err, -EINVAL, "unknown format (valid: %s)", np_format_list());
	}
	if (rc < 0)
		return err && err->code == rc ? rc :
		       np_error_set(err, rc, "cannot write the plan: %s", strerror(-rc));
	if (ferror(f))
		return np_error_set(err, -EIO, "cannot write the plan: %s", strerror(EIO));
	return 0;
}
