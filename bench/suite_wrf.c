/*
 * run_suite_wrf.c - WRF from a run directory the user prepared (wrf.exe,
 * namelist.input, wrfinput/wrfbdy).  Sets the MPI decomposition and the
 * tiling in namelist.input (the original is kept as namelist.input.orig),
 * runs it, and the results parse rsl.error.0000 of every repetition.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "run_util.h"
#include "wrf_parse.h"

/* Rewrite &domains with nproc_x/nproc_y and numtiles set: drop their old
 * lines and add the new ones right after the group header. */
static int set_namelist(const char *dir, unsigned px, unsigned py, unsigned tiles, np_error_t *err)
{
	char *path = np_strdup_printf("%s/namelist.input", dir);
	char *orig = np_strdup_printf("%s/namelist.input.orig", dir);
	char *text = NULL, *line, *nl;
	np_sb_t b;
	int rc = -ENOMEM;

	np_sb_init(&b);
	if (!path || !orig)
		goto out;
	if (!np_file_exists(orig)) {
		text = np_read_file(path, NULL, err);
		if (!text) {
			rc = err->code;
			goto out;
		}
		if ((rc = np_write_file(orig, text, false, err)) < 0)
			goto out;
	} else if (!(text = np_read_file(orig, NULL, err))) {
		rc = err->code;
		goto out;
	}
	for (line = text; line && *line; line = nl ? nl + 1 : NULL) {
		const char *k = line;
		nl = strchr(line, '\n');
		while (*k == ' ' || *k == '\t')
			k++;
		if ((px && strncmp(k, "nproc_x", 7) == 0) || (py && strncmp(k, "nproc_y", 7) == 0) ||
		    (tiles && strncmp(k, "numtiles", 8) == 0))
			continue;
		np_sb_addn(&b, line, nl ? (size_t)(nl - line + 1) : strlen(line));
		if (strncmp(k, "&domains", 8) == 0) {
			if (px)
				np_sb_printf(&b, " nproc_x                             = %u,\n", px);
			if (py)
				np_sb_printf(&b, " nproc_y                             = %u,\n", py);
			if (tiles)
				np_sb_printf(&b, " numtiles                            = %u,\n", tiles);
		}
	}
	if (b.oom)
		goto out;
	rc = np_write_file(path, b.s, false, err);
out:
	if (rc == -ENOMEM && !err->code)
		np_error_set(err, rc, "out of memory");
	np_sb_free(&b);
	free(text);
	free(path);
	free(orig);
	return rc;
}

int np_suite_wrf(np_run_ctx_t *c, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	unsigned nodes = np_run_nodes(c, 1);
	unsigned threads = o->tiles && o->tiles > 1 ? o->tiles : 1;
	unsigned per_node = o->ntasks ? o->ntasks / nodes : c->topo->ncores / threads;
	const char *exe = o->wrf_exe ? o->wrf_exe : "wrf.exe";
	char *dir, *exepath, *nlpath, *nl;
	char name[64];
	np_exp_t *e;
	int rc;

	if (!o->wrf_dir)
		return np_error_set(err, -EINVAL, "wrf needs --wrf-dir DIR (the WRF run directory with wrf.exe and its inputs)");
	dir = np_abspath(o->wrf_dir);
	exepath = np_strdup_printf("%s/%s", dir, exe);
	nlpath = np_strdup_printf("%s/namelist.input", dir);
	if (!dir || !exepath || !nlpath) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (access(exepath, X_OK) != 0) {
		rc = np_error_set(err, -ENOENT, "%s: no executable %s (give --wrf-exe NAME)", o->wrf_dir, exe);
		goto out;
	}
	if (!np_file_exists(nlpath)) {
		rc = np_error_set(err, -ENOENT, "%s: no namelist.input", o->wrf_dir);
		goto out;
	}
	if (per_node == 0)
		per_node = 1;
	if (o->nproc_x && o->nproc_y && o->nproc_x * o->nproc_y != per_node * nodes) {
		rc = np_error_set(err, -EINVAL, "--nproc-x %u x --nproc-y %u is not the rank count %u",
		                  o->nproc_x, o->nproc_y, per_node * nodes);
		goto out;
	}
	if (!c->opts->dry_run && (o->nproc_x || o->nproc_y || o->tiles) &&
	    (rc = set_namelist(dir, o->nproc_x, o->nproc_y, o->tiles, err)) < 0)
		goto out;
	snprintf(name, sizeof(name), "wrf.%un", nodes);
	e = np_exp_new(c, "wrf", "wrf", name, "wrf");
	if (!e) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	e->nodes = nodes;
	e->ntasks = per_node * nodes;
	e->threads = threads;
	e->mpi = true;
	e->workdir = strdup(dir);
	e->cmd = np_strdup_printf("./%s", exe);
	e->desc = np_strdup_printf("%u ranks x %u threads per node on %u node(s)%s", per_node, threads, nodes,
	                           threads > 1 ? " (dm+sm, tiled)" : " (dmpar)");
	nl = np_read_file(nlpath, NULL, NULL);
	if (nl) {
		json_object_set_new(e->params, "radt", json_real(np_wrf_namelist_radt(nl)));
		free(nl);
	}
	json_object_set_new(e->params, "wrf_dir", json_string(dir));
	if (o->nproc_x)
		json_object_set_new(e->params, "nproc_x", json_integer(o->nproc_x));
	if (o->nproc_y)
		json_object_set_new(e->params, "nproc_y", json_integer(o->nproc_y));
	if (o->tiles)
		json_object_set_new(e->params, "numtiles", json_integer(o->tiles));
	rc = np_exp_plan(c, e, o->policy ? o->policy : "compact", per_node, threads, err);
out:
	free(dir);
	free(exepath);
	free(nlpath);
	return rc;
}
